import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Messages sent in several frames (fragment-count / fragment-index): only the last frame carries
/// the checksum, over the joined payload, as the Even G2 glasses do.
final class FragmentTests: XCTestCase {
    let format = FrameFormat(
        name: "frag", magic: [0xaa],
        header: [
            .sequence, .length(width: 1, bigEndian: true), .fragmentCount, .fragmentIndex,
            .command(width: 1, bigEndian: true),
        ],
        lengthCounts: .payloadAndChecksum,
        checksum: FrameFormat.Checksum(.crc16CCITTFalse, covers: .payload, bigEndian: false))

    /// A message of `parts` payloads with one sequence number.
    func message(_ parts: [[UInt8]], seq: UInt8 = 7, command: UInt16 = 0x20) -> [[UInt8]] {
        let crc = ChecksumAlgorithm.crc16CCITTFalse.compute(parts.flatMap { $0 })
        return parts.enumerated().map { i, p in
            format.encode(
                command: command, sequence: seq, payload: p,
                fragment: Frame.Fragment(index: UInt8(i + 1), count: UInt8(parts.count)), messageChecksum: crc)
        }
    }

    func outputs(_ chunks: [[UInt8]], keepsPayloads: Bool = true) -> [String] {
        var s = FramedStream(format: format, detect: false, payloads: keepsPayloads ? .keepAll : .keepNone)
        var out: [FramedStream.Output] = []
        for c in chunks { out += s.push(c[...]) }
        out += s.finish(reason: "the end of the capture")
        return out.map { o in
            switch o {
            case .frame(let f):
                return
                    "frame \(f.sequence ?? 0) \(Hex.string(f.payload)) \(f.fragment.map { "\($0.count) parts" } ?? "") ok=\(f.checksumOK)"
            case .diagnostic(let d): return "\(d.id): \(d.message)"
            }
        }
    }

    func testTheFramesBeforeTheLastHaveNoChecksum() {
        let frames = message([[1, 2], [3], [4, 5, 6]])
        // aa seq len count index cmd payload: the first two frames end with their payload.
        XCTAssertEqual(frames[0], [0xaa, 7, 2, 3, 1, 0x20, 1, 2])
        XCTAssertEqual(frames[1], [0xaa, 7, 1, 3, 2, 0x20, 3])
        XCTAssertEqual(frames[2].count, 6 + 3 + 2)
    }

    func testAMessageIsJoinedAndCheckedWholeSplitAnywhere() {
        let frames = message([[1, 2], [3], [4, 5, 6]])
        let bytes = frames.flatMap { $0 } + format.encode(command: 0x21, sequence: 8, payload: [9])
        let expected = ["frame 7 010203040506 3 parts ok=true", "frame 8 09 1 parts ok=true"]
        XCTAssertEqual(outputs([bytes]), expected)
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { outputs($0) }, [])
    }

    /// A stream that keeps no payloads (a consumer that only counts) still keeps the parts of a
    /// message of several frames: its checksum is over them, joined.
    func testAMessageIsJoinedWhenPayloadsAreNotKept() {
        var bad = message([[1, 2], [3]], seq: 8)
        bad[1][bad[1].count - 1] ^= 0xff
        let bytes =
            (message([[1, 2], [3], [4, 5, 6]]) + bad).flatMap { $0 }
            + format.encode(command: 0x21, sequence: 9, payload: [9])
        let frames = outputs([bytes], keepsPayloads: false).filter { $0.hasPrefix("frame") }
        XCTAssertEqual(
            frames,
            ["frame 7 010203040506 3 parts ok=true", "frame 8 010203 2 parts ok=false", "frame 9  1 parts ok=true"])
    }

    func testAWrongChecksumIsThatOfTheJoinedMessage() {
        var frames = message([[1, 2], [3]])
        frames[1][frames[1].count - 1] ^= 0xff
        XCTAssertEqual(
            outputs(frames),
            [
                "frame 7 010203 2 parts ok=false",
                "a5.checksum.bad: command 0x20 sequence 7: checksum "
                    + Hex.value(
                        UInt16(frames[1][frames[1].count - 1]) << 8 | UInt16(frames[1][frames[1].count - 2]), width: 4)
                    + ", expected " + Hex.value(ChecksumAlgorithm.crc16CCITTFalse.compute([1, 2, 3]), width: 4),
            ])
    }

    func testAMissingMiddleFrameDropsTheMessageAndSaysSo() {
        let frames = message([[1, 2], [3], [4]])
        XCTAssertEqual(
            outputs([frames[0], frames[2]]),
            [
                "a5.fragment.missing: message 0x20 sequence 7: 1 of 3 frames, then frame 3 of 3; 8 bytes dropped",
                "a5.fragment.missing: message 0x20 sequence 7: frame 3 of 3 with no earlier frames of its message; 9 bytes dropped",
            ])
    }

    func testAnotherMessageStartingOrTheStreamEndingDropsThePartialOne() {
        let first = message([[1], [2]])
        let second = message([[5], [6]], seq: 8)
        XCTAssertEqual(
            outputs([first[0]] + second),
            [
                "a5.fragment.missing: message 0x20 sequence 7: 1 of 2 frames, then the first frame of another message; 7 bytes dropped",
                "frame 8 0506 2 parts ok=true",
            ])
        XCTAssertEqual(
            outputs([first[0]]),
            [
                "a5.fragment.missing: message 0x20 sequence 7: 1 of 2 frames, then the stream ended (the end of the capture); 7 bytes dropped"
            ])
    }

    func testJoinedMessagesAreBounded() {
        let wide = FrameFormat(
            name: "wide", magic: [0xaa],
            header: [
                .sequence, .length(width: 2, bigEndian: false), .fragmentCount,
                .fragmentIndex, .command(width: 1, bigEndian: true),
            ],
            lengthCounts: .payloadAndChecksum, checksum: FrameFormat.Checksum(.crc16CCITTFalse, covers: .payload))
        let part = [UInt8](repeating: 0x11, count: 40_000)
        var s = FramedStream(format: wide, detect: false)
        var out = s.push(
            wide.encode(command: 1, sequence: 1, payload: part, fragment: Frame.Fragment(index: 1, count: 2))[...])
        out += s.push(
            wide.encode(command: 1, sequence: 1, payload: part, fragment: Frame.Fragment(index: 2, count: 2))[...])
        guard out.count == 1, case .diagnostic(let d) = out[0] else { return XCTFail("\(out)") }
        XCTAssertEqual(
            d.message,
            "message 0x01 sequence 1: 2 of 2 frames, then its joined payload passed 65536 bytes; 80016 bytes dropped")
        XCTAssertEqual(d.undecodedBytes, 2 * 7 + 80_000 + 2, "two 7-byte headers, the payloads, the CRC")
    }

    /// The 255th frame (fragment-index is one byte) made the next expected index wrap to 0, and a
    /// message dropped there said "-1 of 255 frames".
    func testAMessageDroppedAtItsLastPossibleFrameCountsItsFrames() {
        var s = FramedStream(format: format, detect: false, messageLimit: 254)
        var out: [FramedStream.Output] = []
        for i in 1...255 {
            out += s.push(
                format.encode(
                    command: 0x20, sequence: 7, payload: [1], fragment: Frame.Fragment(index: UInt8(i), count: 255),
                    messageChecksum: 0)[...])
        }
        guard out.count == 1, case .diagnostic(let d) = out[0] else { return XCTFail("\(out)") }
        XCTAssertEqual(
            d.message,
            "message 0x20 sequence 7: 255 of 255 frames, then its joined payload passed 254 bytes; 1787 bytes dropped")
        XCTAssertEqual(d.field("have"), .int(255))
    }
}
