import BTLensCore
import XCTest

@testable import BTLensDissect

/// Whole values with a checksum at their end: Govee's 20-byte commands (33, command, arguments,
/// zeros, then the XOR of the first 19 bytes), as open-source Govee controllers write them.
final class ValueMessageTests: XCTestCase {
    let xor = FrameFormat.Checksum(.xor8)
    /// Power on: 33 01 01, zeros, XOR 0x33.
    let powerOn: [UInt8] = [0x33, 0x01, 0x01] + [UInt8](repeating: 0, count: 16) + [0x33]

    func testAGoveeCommandIsCheckedAndItsChecksumIsNoPayload() {
        guard case .frame(let f) = ValueMessage.frame(powerOn, commandByte: true, checksum: xor) else {
            return XCTFail("short")
        }
        XCTAssertEqual(f.command, 0x33)
        XCTAssertEqual(f.payload, [0x01, 0x01] + [UInt8](repeating: 0, count: 16))
        XCTAssertEqual(f.checksum, 0x33)
        XCTAssertTrue(f.checksumOK)
        var bad = powerOn
        bad[2] = 0x00
        guard case .frame(let g) = ValueMessage.frame(bad, commandByte: true, checksum: xor) else {
            return XCTFail("short")
        }
        XCTAssertEqual(g.expectedChecksum, 0x32)
        XCTAssertFalse(g.checksumOK)
    }

    /// `covers: payload`: the event byte is left out; a 2-byte checksum is read in its byte order.
    func testAChecksumOverThePayloadOnly() {
        var c = FrameFormat.Checksum(.sum16, covers: .payload, bigEndian: false)
        c.bigEndian = false
        guard case .frame(let f) = ValueMessage.frame([0x10, 0x01, 0x02, 0x03, 0x00], commandByte: true, checksum: c)
        else { return XCTFail("short") }
        XCTAssertEqual(f.payload, [0x01, 0x02])
        XCTAssertTrue(f.checksumOK)
    }

    func testAValueTooShortForItsChecksumIsSaid() {
        guard case .short(let d) = ValueMessage.frame([0x33], commandByte: true, checksum: xor) else {
            return XCTFail("a frame")
        }
        XCTAssertEqual(d.id, "a5.payload.short")
        XCTAssertEqual(d.message, "a value of 1 bytes where an event byte and a 1-byte checksum were expected")
        guard case .short(let e) = ValueMessage.frame([], commandByte: true, checksum: nil) else {
            return XCTFail("a frame")
        }
        XCTAssertEqual(e.message, "an empty value where an event byte and its payload were expected")
    }
}
