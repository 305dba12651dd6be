import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Frames of a fixed size (no length field), and lengths that count the header and payload or
/// are off by a constant.
final class FixedSizeFrameTests: XCTestCase {
    /// 8-byte frames: 7E, command, 5 bytes of payload, sum8.
    let fixed = FrameFormat(
        name: "fixed", magic: [0x7e], header: [.command(width: 1, bigEndian: true)],
        checksum: FrameFormat.Checksum(.sum8), size: 8)

    func testFixedSizeFramesAtEveryCut() {
        let one = fixed.encode(command: 0x01, payload: [0x10])
        XCTAssertEqual(one, [0x7e, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00, 0x8f])
        let two = fixed.encode(command: 0x02, payload: [1, 2, 3, 4, 5])
        let bytes = one + [0x55] + two + [0x7e, 0x03]
        XCTAssertEqual(
            fixed.outputs([bytes]),
            [
                "0x01 1000000000 ok=true",
                "a5.resync: skipped 1 byte that do not form a frame, before the frame with command 0x02: "
                    + "expected the magic 0x7e, found 0x55",
                "0x02 0102030405 ok=true",
                "a5.truncated: stream ended by the end inside a frame: 2 of 8 bytes present",
            ])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { fixed.outputs($0) }, [])
    }

    /// With no magic either, each value's frames follow each other from its first byte.
    func testFixedSizeFramesWithoutAMagic() {
        let bare = FrameFormat(
            name: "bare", magic: [], header: [.command(width: 1, bigEndian: true)], checksum: nil, size: 4)
        let bytes: [UInt8] = [0x01, 0xa, 0xb, 0xc, 0x02, 0xd, 0xe, 0xf]
        XCTAssertEqual(bare.outputs([bytes]), ["0x01 0a0b0c ok=true", "0x02 0d0e0f ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { bare.outputs($0) }, [])
    }

    /// `header-payload`: the length counts the header fields after the magic and the payload.
    func testALengthOfTheHeaderAndPayload() {
        let format = FrameFormat(
            name: "hp", magic: [0xa5],
            header: [.length(width: 1, bigEndian: true), .command(width: 1, bigEndian: true)],
            lengthCounts: .headerAndPayload, checksum: FrameFormat.Checksum(.xor8))
        let bytes = format.encode(command: 0x09, payload: [0x01, 0x02])
        XCTAssertEqual(bytes, [0xa5, 0x04, 0x09, 0x01, 0x02, 0xab])
        XCTAssertEqual(format.outputs([bytes + bytes]), ["0x09 0102 ok=true", "0x09 0102 ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes + bytes) { format.outputs($0) }, [])
    }

    /// `length-adjust: -1`: a length one more than the payload (a vendor counting a type byte twice).
    func testALengthAdjustment() {
        let format = FrameFormat(
            name: "adj", magic: [0xa5],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            checksum: nil, lengthAdjust: -1)
        XCTAssertEqual(format.encode(command: 0x01, payload: [0xee]), [0xa5, 0x01, 0x02, 0xee])
        XCTAssertEqual(
            format.outputs([[0xa5, 0x01, 0x02, 0xee, 0xa5, 0x02, 0x01]]), ["0x01 ee ok=true", "0x02  ok=true"])
        // A length of 0 adjusts to -1: no frame, junk.
        XCTAssertEqual(
            format.outputs([[0xa5, 0x01, 0x00]]),
            [
                "a5.resync: skipped 3 bytes that do not form a frame, with no frame after them: "
                    + "expected a length for a frame of 3 to 65536 bytes, found 0"
            ])
    }
}
