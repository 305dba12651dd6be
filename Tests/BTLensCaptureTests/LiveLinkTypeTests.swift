import XCTest

@testable import BTLensCapture

/// A libpcap interface is checked as a file is (`PcapReader(interface:)` asks `pcap_datalink` and
/// goes through the same check): an interface that reports a sniffer's link type is read, as
/// nothing without the hardware can show otherwise; BR/EDR baseband is refused with the reason.
final class LiveLinkTypeTests: XCTestCase {
    func testAnInterfaceReportingASnifferLinkTypeIsRead() throws {
        for linkType: Int32 in [251, 256, 272] {
            let info = try PcapReader.info(linkType: linkType, format: "live sniffer0")
            XCTAssertEqual(info.linkType, Int(linkType))
            XCTAssertEqual(info.format, "live sniffer0")
        }
        XCTAssertThrowsError(try PcapReader.info(linkType: 255, format: "live ubertooth0")) { error in
            XCTAssertTrue("\(error)".contains("over-the-air link-layer capture"), "\(error)")
        }
    }
}
