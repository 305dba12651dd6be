import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Frames with no magic: the header starts with the length (Pebble's wire protocol over SPP:
/// length u16be of the payload, endpoint u16be, payload), and only a value's first byte can
/// start a frame once the framer is out of sync.
final class UnmarkedFrameTests: XCTestCase {
    let pebble = FrameFormat(
        name: "pebble", magic: [],
        header: [.length(width: 2, bigEndian: true), .command(width: 2, bigEndian: true)], checksum: nil)

    func frame(_ endpoint: UInt16, _ payload: [UInt8]) -> [UInt8] {
        pebble.encode(command: endpoint, payload: payload)
    }
    func testFramesFollowEachOtherAcrossValuesAtEveryCut() {
        // A 300-byte payload: its length's high byte is 0x01, which a magic could not have stood for.
        let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = frame(0x0011, [0x01]) + frame(0x07d1, long) + frame(0x0bc2, [])
        XCTAssertEqual(Array(bytes[5..<7]), [0x01, 0x2c])
        XCTAssertEqual(
            pebble.outputs([bytes]), ["0x11 01 ok=true", "0x07d1 0001020304050607… (300) ok=true", "0x0bc2  ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { pebble.outputs($0) }, [])
    }

    /// A length that cannot be right (shorter than the header it counts) loses sync: the value's
    /// bytes are junk, and the next value's first byte starts a frame.
    func testOutOfSyncTheNextValueStartsAFrame() {
        let counted = FrameFormat(
            name: "counted", magic: [],
            header: [.length(width: 1, bigEndian: true), .command(width: 1, bigEndian: true)],
            lengthCounts: .frame, checksum: nil)
        XCTAssertEqual(
            counted.outputs([[0x01, 0x99, 0x98], [0x00, 0x42], [0x03, 0x07, 0xaa]]),
            [
                "a5.resync: skipped 5 bytes that do not form a frame, before the frame with command 0x07: "
                    + "expected a length for a frame of 2 to 65536 bytes, found 1",
                "0x07 aa ok=true",
            ])
    }

    /// Bose BMAP's packets (function block, function, operator byte, length) each fill one RFCOMM
    /// frame: with `span-values: false`, two junk bytes shorter than a header are junk once the next
    /// value begins, instead of the first bytes of its frame. Spanning values, they eat its header.
    func testFramesThatDoNotSpanValues() {
        var bmap = FrameFormat(
            name: "bmap", magic: [],
            header: [.command(width: 2, bigEndian: true), .flags, .length(width: 1, bigEndian: true)], checksum: nil)
        let values: [[UInt8]] = [[0x13, 0x37], [0x02, 0x02, 0x03, 0x01, 0x55], [0x01, 0x02, 0x03, 0x00]]
        XCTAssertEqual(
            bmap.outputs(values),
            ["0x1337 0301 ok=true", "a5.truncated: stream ended by the end inside a frame: 5 of 7 bytes present"])
        bmap.spansValues = false
        XCTAssertEqual(
            bmap.outputs(values),
            [
                "a5.resync: skipped 2 bytes that do not form a frame, before the frame with command 0x202: "
                    + "expected a frame to end in the value it began in, found the value ended first",
                "0x0202 55 ok=true", "0x0102  ok=true",
            ])
    }

    /// In sync, a frame with a bad checksum is still a frame, as with a magic.
    func testABadChecksumInSyncIsShown() {
        let checked = FrameFormat(
            name: "checked", magic: [],
            header: [.length(width: 1, bigEndian: true), .command(width: 1, bigEndian: true)],
            checksum: FrameFormat.Checksum(.xor8))
        var bytes = checked.encode(command: 0x05, payload: [0x10, 0x20])
        XCTAssertEqual(checked.outputs([bytes]), ["0x05 1020 ok=true"])
        bytes[bytes.count - 1] ^= 0xff
        XCTAssertEqual(
            checked.outputs([bytes]),
            ["0x05 1020 ok=false", "a5.checksum.bad: command 0x05: checksum 0xc8, expected 0x37"])
    }

    /// A 4-byte length (Sony's, u32be) holds up to `--limit message-bytes`: one claiming more is
    /// taken as wrong, so the buffer never grows past the limit, whatever the length says.
    func testAFourByteLengthIsBoundedByTheMessageLimit() {
        let sony = FrameFormat(
            name: "u32", magic: [],
            header: [.command(width: 1, bigEndian: true), .length(width: 4, bigEndian: true)], checksum: nil)
        let payload = [UInt8](repeating: 0x55, count: 70_000)
        let bytes = sony.encode(command: 0x0c, payload: payload)
        XCTAssertEqual(Array(bytes[1..<5]), [0x00, 0x01, 0x11, 0x70])
        XCTAssertEqual(
            sony.outputs([Array(bytes.prefix(1_000))]),
            [
                "a5.resync: skipped 1000 bytes that do not form a frame, with no frame after them: "
                    + "expected a length for a frame of 5 to 65536 bytes, found 70000"
            ])
        var framer = MessageFramer(format: sony, frameLimit: 80_000)
        framer.append(bytes)
        XCTAssertEqual(framer.next()?.frame.payloadCount, 70_000)
    }

    /// With no checksum, a stray magic's length would hold every later frame: a definition's
    /// `max-length` says such a length is wrong, and the next magic is a frame's (Meshtastic's
    /// stream: `94 C3`, length u16be, at most 512 bytes of payload).
    func testAMaximumLengthLetsAStrayMagicGo() {
        let bounded = FrameFormat(
            name: "m", magic: [0x94, 0xc3], header: [.length(width: 2, bigEndian: true)], checksum: nil,
            maxLength: 516)
        let stray: [UInt8] = [0x94, 0xc3, 0x40, 0x00, 0x2e]
        let frame = bounded.encode(command: 0, payload: [0x18, 0x01])
        XCTAssertEqual(
            bounded.outputs([stray + frame]),
            [
                "a5.resync: skipped 5 bytes that do not form a frame, before the frame with command 0x00: "
                    + "expected a length for a frame of 4 to 516 bytes, found 16384",
                "0x00 1801 ok=true",
            ])
        let unbounded = FrameFormat(
            name: "m", magic: [0x94, 0xc3], header: [.length(width: 2, bigEndian: true)], checksum: nil)
        XCTAssertEqual(
            unbounded.outputs([stray + frame]),
            ["a5.truncated: stream ended by the end inside a frame: 11 of 16388 bytes present"])
    }

    /// A frame cut off by the stream's end is said, with what was present.
    func testAFrameCutOffIsTruncated() {
        let bytes = frame(0x0011, [1, 2, 3, 4])
        XCTAssertEqual(
            pebble.outputs([Array(bytes.prefix(6))]),
            ["a5.truncated: stream ended by the end inside a frame: 6 of 8 bytes present"])
    }
}
