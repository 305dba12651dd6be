import BTLensCore
import XCTest

@testable import BTLensCapture

/// The devices PacketLogger config records list (docs/protocols/capture-formats.md), which
/// `--redact` hides.
final class PacketLoggerDeviceTests: XCTestCase {
    func testADeviceRecordGivesItsNameAndAddress() {
        // Version 1, two bytes, the name's length and UTF-8, the address least significant byte first, a key.
        let name = Array("Ana's Buds".utf8)
        let address: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
        let payload = [0x01, 0x50, 0x00, UInt8(name.count)] + name + address + Array(repeating: 0xab, count: 16)
        let d = PacketLoggerDevice(config: payload[...])
        XCTAssertEqual(d?.name, "Ana's Buds")
        XCTAssertEqual(d?.address?.description, "11:22:33:44:55:66")
        // No address (zeros), or none at all.
        XCTAssertNil(
            PacketLoggerDevice(config: ([0x01, 0, 0, 3] + Array("Pod".utf8) + [0, 0, 0, 0, 0, 0])[...])?.address)
        XCTAssertEqual(PacketLoggerDevice(config: ([0x01, 0, 0, 3] + Array("Pod".utf8))[...])?.name, "Pod")
    }

    func testOtherRecordsNameNoDevice() {
        for payload: [UInt8] in [
            [0xff], [], [0x02, 0x0a, 0x50, 0x00, 0x10], [0x01, 0, 0, 0], [0x01, 0, 0, 9, 0x41, 0x42],
            [0x01, 0, 0, 2, 0xc3, 0x28], [0x01, 0, 0, 2, 0x41, 0x07],
        ] {
            XCTAssertNil(PacketLoggerDevice(config: payload[...]), Hex.string(payload))
        }
    }
}
