import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// A preamble a stream sends once before its first frame, as Chsmartbulb's lamps send an 8-byte
/// text before their `01 FE 00 00` frames: said as such, not skipped as junk.
final class PreambleTests: XCTestCase {
    let bulb = FrameFormat(
        name: "bulb", magic: [0x01, 0xfe, 0x00, 0x00],
        header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
        checksum: FrameFormat.Checksum(.sum8), preamble: Array("BT-READY".utf8))

    func testThePreambleIsSaidOnceAtEveryCut() {
        let frame = bulb.encode(command: 0x21, payload: [0x01])
        let bytes = Array("BT-READY".utf8) + frame + frame
        let again = bytes + Array("BT-READY".utf8) + frame
        XCTAssertEqual(
            bulb.outputs([again]).suffix(2),
            [
                "a5.resync: skipped 8 bytes that do not form a frame, before the frame with command 0x21: "
                    + "expected the magic 0x01fe0000, found 0x42",
                "0x21 01 ok=true",
            ])
        XCTAssertEqual(
            bulb.outputs([bytes]),
            [
                "a5.preamble: the stream's preamble \"BT-READY\" (8 bytes), before its first frame",
                "0x21 01 ok=true", "0x21 01 ok=true",
            ])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { bulb.outputs($0) }, [])
    }

    /// A stream that starts with a frame has no preamble; the preamble's bytes later are junk.
    func testThePreambleComesOnlyFirst() {
        let frame = bulb.encode(command: 0x21, payload: [0x01])
        XCTAssertEqual(
            bulb.outputs([frame + Array("BT-READY".utf8) + frame]),
            [
                "0x21 01 ok=true",
                "a5.resync: skipped 8 bytes that do not form a frame, before the frame with command 0x21: "
                    + "expected the magic 0x01fe0000, found 0x42",
                "0x21 01 ok=true",
            ])
        // Bytes that begin like it and then differ are framed as they are.
        XCTAssertEqual(
            bulb.outputs([Array("BT-".utf8) + frame]),
            [
                "a5.resync: skipped 3 bytes that do not form a frame, before the frame with command 0x21: "
                    + "expected the magic 0x01fe0000, found 0x42",
                "0x21 01 ok=true",
            ])
    }

    /// A delimited stream's preamble in hex; the frame after it needs no end byte before it.
    func testADelimitedStreamsPreamble() {
        let slip = FrameFormat(
            name: "slip", magic: [], header: [.command(width: 1, bigEndian: true)],
            checksum: FrameFormat.Checksum(.xor8), delimiting: .slip, preamble: [0x0d, 0x0a])
        var bad = slip.encode(command: 0x07, payload: [0x01])
        bad[bad.count - 2] ^= 0x01
        let bytes = [0x0d, 0x0a] + bad
        XCTAssertEqual(
            slip.outputs([bytes]),
            [
                "a5.preamble: the stream's preamble 0d0a (2 bytes), before its first frame", "0x07 01 ok=false",
                "a5.checksum.bad: command 0x07: checksum 0x07, expected 0x06",
            ])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { slip.outputs($0) }, [])
    }

    /// A stream detected on a definition's devices: its preamble is a value before the first frame,
    /// said with the bytes detection skipped, and frames are found after it.
    func testADetectedStreamFramesAfterItsPreamble() {
        var stream = FramedStream(format: bulb, detect: true)
        let frame = bulb.encode(command: 0x21, payload: [0x01])
        XCTAssertTrue(stream.push(Array("BT-READY".utf8)[...]).isEmpty)
        let out = stream.push(frame[...])
        XCTAssertTrue(stream.isFramed)
        guard case .diagnostic(let d)? = out.first, case .frame(let f)? = out.last else { return XCTFail("\(out)") }
        XCTAssertEqual(d.id, "a5.resync")
        XCTAssertEqual(f.command, 0x21)
    }
}
