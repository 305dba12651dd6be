import BTLensCapture
import BTLensPipeline
import BTLensTestSupport
import XCTest

@testable import BTLensReport

/// `--redact` looks for every known name and address inside every string of a report: a capture of
/// thousands of advertisers must not make that quadratic, and every name must still be replaced.
final class RedactionBoundTests: XCTestCase {
    func testThousandsOfDevicesAreRedactedWithABoundedSearch() throws {
        var s = LESession()
        for i in 0..<600 {
            let name = Array("Device \(i)".utf8)
            let ad: [UInt8] = [UInt8(name.count + 1), 0x09] + name
            // LE Advertising Report (Core Vol 4 Part E 7.7.65.2): one report, address 02:00:00:00:HI:LO, least significant byte first.
            s.event(
                0x3e,
                [0x02, 0x01, 0x00, 0x00, UInt8(i & 0xff), UInt8(i >> 8), 0, 0, 0, 0x02, UInt8(ad.count)] + ad
                    + [UInt8(bitPattern: -50)])
        }
        func report(redact: Bool) throws -> Report {
            var options = ReportBuilder.Options()
            options.redact = redact
            var reader = try CaptureFormat.open(MemorySource(s.bytes))
            let builder = ReportBuilder(file: "many", info: reader.info, options: options)
            let analyzer = try Pipeline.run(&reader, onRecord: builder.record, onEvent: builder.event)
            return builder.finish(
                connections: analyzer.connectionSummaries, gatt: analyzer.gatt, advertisers: analyzer.advertisers)
        }
        let plain = try report(redact: false)
        // The advertisers table keeps 256; the rows name all 600 addresses, and GAP reads can name
        // thousands of devices (given here as the builder gathers them).
        let names = Set((0..<600).map { "Device \($0)" })
        XCTAssertTrue(plain.rows.contains { $0.text.contains("02:00:00:00:02:57") })
        // Each searched name has at most four forms (text, escaped text, two hex spellings), each address four.
        XCTAssertEqual(Redactor.searched, 256)
        XCTAssertLessThanOrEqual(Redactor(plain, deviceNames: names).searchedForms, 8 * 256)
        let redacted = try report(redact: true)
        XCTAssertEqual(redacted.advertisers.filter { $0.name?.hasPrefix("[name ") != true }.count, 0)
        XCTAssertEqual(redacted.advertisers.filter { !$0.address.hasPrefix("[address ") }.count, 0)
        let html = ReportHTML.render(redacted, generator: "test")
        XCTAssertFalse(html.contains("Device 599"))
        XCTAssertFalse(html.contains("02:00:00:00:02:57"))
    }
}
