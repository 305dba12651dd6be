import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Delimited framings: frames found by their end byte (and start byte), unescaped before their
/// header, payload and checksum are read.
final class DelimitedFrameTests: XCTestCase {
    /// The escapes of each named framing, from their specifications: SLIP (RFC 1055): C0 is sent
    /// as DB DC, DB as DB DD; HDLC-like framing (RFC 1662 §4.2): 7E as 7D 5E, 7D as 7D 5D; COBS
    /// (Cheshire and Baker; the examples Wikipedia's article lists): 00 is 01 01, 11 22 00 33 is
    /// 03 11 22 02 33.
    func testTheSpecificationsEscapes() {
        let vectors: [(Delimiting, String, String)] = [
            (.slip, "01 db dc 02 db dd 03", "01 c0 02 db 03"),
            (.hdlc, "7d 5e 41 7d 5d", "7e 41 7d"),
            (.cobs, "01 01", "00"),
            (.cobs, "03 11 22 02 33", "11 22 00 33"),
            (.cobs, "01 01 01", "00 00"),
        ]
        for (d, wire, frame) in vectors {
            XCTAssertEqual(d.unescape((Hex.bytes(wire) ?? [])[...]), Hex.bytes(frame), wire)
            XCTAssertEqual(d.unescape((d.wrap(Hex.bytes(frame) ?? []).dropLast())[...]), Hex.bytes(frame), frame)
        }
        XCTAssertNil(Delimiting.slip.unescape([0x01, 0xdb, 0x00][...]), "DB 00 stands for nothing")
        XCTAssertNil(Delimiting.hdlc.unescape([0x01, 0x7d][...]), "an escape cut off")
        XCTAssertNil(Delimiting.cobs.unescape([0x05, 0x01][...]), "a run longer than the frame")
    }

    /// Sony's headphones: 3E, type, payload, sum8, 3C; 3C 3D 3E inside are 3D and the byte with
    /// bit 4 cleared (an XOR with 0x10, as bit 4 is set in all three).
    let sony = FrameFormat(
        name: "sony", magic: [], header: [.command(width: 1, bigEndian: true)], checksum: FrameFormat.Checksum(.sum8),
        delimiting: Delimiting(start: 0x3e, end: 0x3c, escape: .xor(escape: 0x3d, mask: 0x10)))

    func testEscapedMarksInsideAFrameAtEveryCut() {
        let bytes =
            sony.encode(command: 0x0c, payload: [0x3c, 0x3d, 0x3e, 0x01]) + sony.encode(command: 0x0d, payload: [])
        XCTAssertEqual(Array(bytes.prefix(9)), [0x3e, 0x0c, 0x3d, 0x2c, 0x3d, 0x2d, 0x3d, 0x2e, 0x01])
        XCTAssertEqual(sony.outputs([bytes]), ["0x0c 3c3d3e01 ok=true", "0x0d  ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { sony.outputs($0) }, [])
    }

    /// Bytes before a start byte are junk; so is a frame that lost its end (a second start
    /// inside it), and one whose escape stands for nothing.
    func testJunkAndBrokenFramesResync() {
        let good = sony.encode(command: 0x01, payload: [0x02])
        XCTAssertEqual(
            sony.outputs([[0x99, 0x98] + good]),
            [
                "a5.resync: skipped 2 bytes that do not form a frame, before the frame with command 0x01: "
                    + "expected a start byte, found 0x99",
                "0x01 02 ok=true",
            ])
        let resync = sony.outputs([[0x3e, 0x05, 0x06] + good])
        XCTAssertEqual(resync.count, 2)
        XCTAssertTrue(resync[0].hasPrefix("a5.resync: skipped 3 bytes"), resync[0])
        XCTAssertEqual(resync[1], "0x01 02 ok=true")
        let badEscape = sony.outputs([[0x3e, 0x01, 0x3d] + [0x3c] + good])
        XCTAssertTrue(badEscape[0].hasPrefix("a5.resync: skipped 4 bytes"), badEscape[0])
    }

    /// An end byte with no start before it, alone or first in a value, is junk with what precedes it.
    func testAnEndWithNoStartIsJunk() {
        let good = sony.encode(command: 0x01, payload: [0x02])
        XCTAssertEqual(
            sony.outputs([[0x3c], [0x41, 0x3c] + good]),
            [
                "a5.resync: skipped 3 bytes that do not form a frame, before the frame with command 0x01: "
                    + "expected a start byte before the end byte, found none",
                "0x01 02 ok=true",
            ])
        XCTAssertEqual(
            sony.outputs([[0x3c, 0x3c]]),
            [
                "a5.resync: skipped 2 bytes that do not form a frame, with no frame after them: "
                    + "expected a start byte before the end byte, found none"
            ])
    }

    /// Random bytes through every delimited framing never trap, and everything is accounted for.
    func testRandomBytesThroughEveryDelimiting() {
        var rng = SplitMix(seed: 7)
        let marks = [sony.delimiting, .slip, .hdlc, .cobs].compactMap { $0 }
        for d in marks {
            let format = FrameFormat(
                name: "r", magic: [], header: [.command(width: 1, bigEndian: true)],
                checksum: FrameFormat.Checksum(.sum8), delimiting: d)
            for _ in 0..<300 {
                // Bytes biased toward the marks, so that starts, ends and escapes are frequent.
                let pool: [UInt8] = [d.end, d.start ?? 0x00, 0x3d, 0xdb, 0x7d, 0xdc, 0x5e, 0x01]
                let values = (0..<rng.below(6)).map { _ in
                    (0..<rng.below(12)).map { _ in
                        rng.below(3) == 0 ? UInt8(truncatingIfNeeded: rng.next()) : pool[rng.below(pool.count)]
                    }
                }
                _ = format.outputs(values)
            }
        }
    }

    /// SLIP's leading END and HDLC's shared flag delimit nothing: no junk is said for them.
    func testEmptyFramesAreNotJunk() {
        let slip = FrameFormat(
            name: "slip", magic: [], header: [.command(width: 1, bigEndian: true)], checksum: nil, delimiting: .slip)
        XCTAssertEqual(
            slip.outputs([[0xc0, 0x07, 0xdb, 0xdc, 0xc0, 0xc0, 0x08, 0xc0]]), ["0x07 c0 ok=true", "0x08  ok=true"])
        let hdlc = FrameFormat(
            name: "hdlc", magic: [], header: [.command(width: 1, bigEndian: true)], checksum: nil, delimiting: .hdlc)
        XCTAssertEqual(
            hdlc.outputs([[0x7e, 0x07, 0x7d, 0x5e, 0x7e, 0x08, 0x7e]]), ["0x07 7e ok=true", "0x08  ok=true"])
    }

    /// A length field, where a delimited framing has one, must agree with the frame's end.
    func testALengthThatDisagreesWithTheEndIsJunk() {
        let cobs = FrameFormat(
            name: "gfdi", magic: [],
            header: [.length(width: 2, bigEndian: false), .command(width: 2, bigEndian: false)],
            lengthCounts: .frame, checksum: nil, delimiting: .cobs)
        let good = cobs.encode(command: 0x1388, payload: [0x00, 0x01])
        XCTAssertEqual(cobs.outputs([good]), ["0x1388 0001 ok=true"])
        var wrongLength = [UInt8](Delimiting.cobs.unescape(good.dropLast()[...]) ?? [])
        wrongLength[0] = 9
        let out = cobs.outputs([Delimiting.cobs.wrap(wrongLength)])
        XCTAssertEqual(out.count, 1)
        XCTAssertTrue(out[0].hasPrefix("a5.resync: skipped"), out[0])
    }

    /// Bytes without an end are held up to twice the frame limit, then dropped as junk.
    func testBytesWithNoEndAreBounded() {
        var framer = MessageFramer(format: sony, frameLimit: 100)
        framer.append([0x3e] + [UInt8](repeating: 0x41, count: 150))
        XCTAssertNil(framer.next())
        XCTAssertEqual(framer.buffered, 151)
        framer.append([UInt8](repeating: 0x41, count: 60))
        XCTAssertNil(framer.next())
        XCTAssertEqual(framer.buffered, 0)
        XCTAssertEqual(framer.skipped, 211)
    }

    /// SLIP (RFC 1055) with an xor8: bytes at a stream's start with no END before them may be the
    /// tail of a frame sent before the capture began. Failing their checksum, they are junk, not a
    /// frame; after an END, a frame with a bad checksum is still shown.
    func testAFrameWithNoEndBeforeItMustProveItself() {
        let slip = FrameFormat(
            name: "slip", magic: [], header: [.command(width: 1, bigEndian: true)],
            checksum: FrameFormat.Checksum(.xor8), delimiting: .slip)
        let good = slip.encode(command: 0x07, payload: [0xc0, 0x01])
        XCTAssertEqual(good, [0x07, 0xdb, 0xdc, 0x01, 0xc6, 0xc0])
        var bad = good
        bad[4] = 0xc7
        let junkFirst = [0x05, 0x06, 0x07, 0xc0] + good + bad
        XCTAssertEqual(
            slip.outputs([junkFirst]),
            [
                "a5.resync: skipped 4 bytes that do not form a frame, before the frame with command 0x07: "
                    + "expected a frame whose checksum holds before the stream's first end byte, found one that does not",
                "0x07 c001 ok=true", "0x07 c001 ok=false",
                "a5.checksum.bad: command 0x07: checksum 0xc7, expected 0xc6",
            ])
        XCTAssertEqual(FramerVerifier.disagreements(junkFirst) { slip.outputs($0) }, [])
        // A good frame first needs no END before it; after a leading END, a bad one is shown.
        XCTAssertEqual(slip.outputs([good]), ["0x07 c001 ok=true"])
        XCTAssertEqual(slip.outputs([[0xc0] + bad]).first, "0x07 c001 ok=false")
    }
}
