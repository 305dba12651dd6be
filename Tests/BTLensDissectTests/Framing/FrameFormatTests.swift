import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Checksum algorithms against their check values, and frame variants through the framer.
final class ChecksumTests: XCTestCase {
    // The check value of each simple algorithm over the ASCII bytes "123456789" (the CRC
    // catalogue's convention): sum 0x1DD, its two's complement 0x23, xor 0x31. The CRCs are
    // held to the catalogue's own check values in CRCTests.
    func testCheckValues() {
        let input = Array("123456789".utf8)
        XCTAssertEqual(ChecksumAlgorithm.sum8.compute(input), 0xdd)
        XCTAssertEqual(ChecksumAlgorithm.sum16.compute(input), 0x1dd)
        XCTAssertEqual(ChecksumAlgorithm.twosComplement8.compute(input), 0x23)
        XCTAssertEqual(ChecksumAlgorithm.xor8.compute(input), 0x31)
        XCTAssertEqual(ChecksumAlgorithm.crc16CCITTFalse.compute(input), 0x29b1)
        XCTAssertEqual(ChecksumAlgorithm.crc16CCITTFalse.width, 2)
        XCTAssertEqual(ChecksumAlgorithm.sum16.width, 2)
        XCTAssertEqual(ChecksumAlgorithm.named("crc-32")?.width, 4)
        XCTAssertEqual(ChecksumAlgorithm.named("xor8"), .xor8)
    }

    /// A frame is moved with every frame event: a 32-bit checksum did not make it bigger.
    func testAFrameStays48Bytes() {
        XCTAssertEqual(MemoryLayout<Frame>.size, 48)
    }

    /// The names definitions used before the catalogue keep meaning what they meant.
    func testTheFirstNamesStillWork() {
        let input = Array("123456789".utf8)
        XCTAssertEqual(ChecksumAlgorithm.named("crc8")?.compute(input), 0xf4)
        XCTAssertEqual(ChecksumAlgorithm.named("crc16-ccitt")?.compute(input), 0x29b1)
    }
}

extension ChecksumAlgorithm {
    static let crc8 = ChecksumAlgorithm.named("crc-8")!
    static let crc16CCITTFalse = ChecksumAlgorithm.named("crc-16/ccitt-false")!
}

final class FrameFormatTests: XCTestCase {
    /// 55 AA, command u2be, sequence, length u2le (payload), payload, CRC-16/CCITT over everything
    /// after the magic, big-endian.
    let variant = FrameFormat(
        name: "variant", magic: [0x55, 0xaa],
        header: [.command(width: 2, bigEndian: true), .sequence, .length(width: 2, bigEndian: false)],
        checksum: FrameFormat.Checksum(.crc16CCITTFalse, covers: .afterMagic, bigEndian: true))
    // Computed by hand: CRC-16/CCITT-FALSE of 01 02 05 03 00 0a 0b 0c is 0x616a.
    let variantBytes: [UInt8] = [0x55, 0xaa, 0x01, 0x02, 0x05, 0x03, 0x00, 0x0a, 0x0b, 0x0c, 0x61, 0x6a]

    func frames(_ format: FrameFormat, _ chunks: [[UInt8]]) -> [MessageFramer.Step] {
        var framer = MessageFramer(format: format)
        var out: [MessageFramer.Step] = []
        for c in chunks {
            framer.append(c)
            while let s = framer.next() { out.append(s) }
        }
        return out
    }

    /// The definition parser insists on a length field; a format built in Swift without one frames
    /// nothing and skips its bytes, rather than reading a length from nowhere.
    func testAFormatWithoutALengthFieldFramesNothing() {
        let noLength = FrameFormat(
            name: "no-length", magic: [0x55], header: [.command(width: 1, bigEndian: true), .sequence],
            checksum: nil)
        var framer = MessageFramer(format: noLength)
        framer.append([0x55, 0x01, 0x02, 0x03, 0x55, 0x04, 0x05])
        XCTAssertNil(framer.next())
        XCTAssertEqual(framer.buffered, 0)
    }

    func testTheA5ExampleOfTheSpec() {
        // docs/protocols/a5-frame.md: "set EQ preset to bass boost", A5 01 20 07 00 01 01 CF.
        let steps = frames(.a5, [[0xa5, 0x01, 0x20, 0x07, 0x00, 0x01, 0x01, 0xcf]])
        XCTAssertEqual(
            steps.map(\.frame),
            [
                Frame(
                    version: 1, command: 0x20, sequence: 7, flags: 0, payload: [1],
                    checksum: 0xcf, expectedChecksum: 0xcf)
            ])
    }

    func testVariantVectorDecodes() {
        let steps = frames(variant, [variantBytes])
        XCTAssertEqual(steps.count, 1)
        let f = steps[0].frame
        XCTAssertEqual(f.command, 0x0102)
        XCTAssertEqual(f.sequence, 5)
        XCTAssertNil(f.version)
        XCTAssertNil(f.flags)
        XCTAssertEqual(f.payload, [0x0a, 0x0b, 0x0c])
        XCTAssertEqual(f.checksum, 0x616a)
        XCTAssertTrue(f.checksumOK)
        XCTAssertEqual(f.length, 12)
        XCTAssertEqual(variant.encode(command: 0x0102, sequence: 5, payload: [0x0a, 0x0b, 0x0c]), variantBytes)
    }

    func testVariantSplitAtEveryOffsetAndByteByByte() {
        let two = variantBytes + variant.encode(command: 0x0003, sequence: 6, payload: Array(0..<40))
        let whole = frames(variant, [two]).map(\.frame)
        XCTAssertEqual(whole.count, 2)
        XCTAssertEqual(FramerVerifier.disagreements(two) { frames(variant, $0).map(\.frame) }, [])
    }

    func testLengthCountingTheWholeFrame() {
        // 7E, command, length = whole frame (6), payload 11 22, xor8 over the payload (0x33).
        let format = FrameFormat(
            name: "f", magic: [0x7e],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            lengthCounts: .frame, checksum: FrameFormat.Checksum(.xor8, covers: .payload))
        let bytes: [UInt8] = [0x7e, 0x09, 0x06, 0x11, 0x22, 0x33]
        let f = frames(format, [bytes]).first?.frame
        XCTAssertEqual(f?.payload, [0x11, 0x22])
        XCTAssertEqual(f?.checksumOK, true)
        XCTAssertEqual(format.encode(command: 9, payload: [0x11, 0x22]), bytes)
    }

    func testLengthCountingWhatFollowsIt() {
        // F0, length = bytes after it (command, payload, checksum: 3), command 42, payload 99,
        // two's complement of the sum of the frame (0x32).
        let format = FrameFormat(
            name: "g", magic: [0xf0],
            header: [.length(width: 1, bigEndian: true), .command(width: 1, bigEndian: true)],
            lengthCounts: .rest, checksum: FrameFormat.Checksum(.twosComplement8))
        let bytes: [UInt8] = [0xf0, 0x03, 0x42, 0x99, 0x32]
        let f = frames(format, [bytes]).first?.frame
        XCTAssertEqual(f?.command, 0x42)
        XCTAssertEqual(f?.payload, [0x99])
        XCTAssertEqual(f?.checksumOK, true)
        XCTAssertEqual(format.encode(command: 0x42, payload: [0x99]), bytes)
    }

    func testALengthTooSmallForTheHeaderIsJunkNotAFrame() {
        let format = FrameFormat(
            name: "f", magic: [0x7e],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            lengthCounts: .frame, checksum: nil)
        // Length 2 cannot hold magic, command and length: the 7E is skipped; the next frame is found.
        let steps = frames(format, [[0x7e, 0x01, 0x02] + format.encode(command: 5, payload: [1])])
        XCTAssertEqual(steps.map(\.frame.command), [5])
        XCTAssertEqual(steps.first?.skipped, 3)
    }

    func testAPartialMagicIsSkippedOneByteAtATime() {
        // 55 55 AA …: the first 55 is not followed by AA.
        let steps = frames(variant, [[0x55] + variantBytes])
        XCTAssertEqual(steps.map(\.skipped), [1])
        XCTAssertEqual(steps.map(\.frame.command), [0x0102])
    }

    func testOutOfSyncABadChecksumIsSkippedInSyncItIsShown() {
        var bad = variantBytes
        bad[bad.count - 1] ^= 0xff
        let inSync = frames(variant, [bad])
        XCTAssertEqual(inSync.count, 1)
        XCTAssertEqual(inSync.first?.frame.checksumOK, false)
        let afterJunk = frames(variant, [[0x00] + bad + variantBytes])
        XCTAssertEqual(afterJunk.count, 1)
        XCTAssertEqual(afterJunk.first?.skipped, 1 + bad.count)
        XCTAssertEqual(afterJunk.first?.frame.checksumOK, true)
    }

    func testAVariantStreamBoundFromTheFirstByteTracksSequences() {
        var s = FramedStream(format: variant, detect: false)
        var out = s.push(variantBytes[...])
        out += s.push(variant.encode(command: 1, sequence: 7, payload: [])[...])
        let ids = out.map { o -> String in
            switch o {
            case .frame(let f): return "frame \(f.sequence ?? 0)"
            case .diagnostic(let d): return d.id + " " + d.message
            }
        }
        XCTAssertEqual(ids, ["frame 5", "frame 7", "a5.sequence.gap expected sequence 6, got 7: 1 frame missing"])
    }

    func testAFormatWithoutSequenceTracksNone() {
        let format = FrameFormat(
            name: "n", magic: [0x7e],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            checksum: FrameFormat.Checksum(.crc8))
        var s = FramedStream(format: format, detect: false)
        let frame = format.encode(command: 3, payload: [1, 2])
        let out = s.push((frame + frame)[...])
        XCTAssertEqual(out.count, 2)
    }
}
