import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Header fields in the bits of a word, lengths off by a constant, and checksums over a range of
/// the frame's parts: Samsung Galaxy Buds' frames (as GalaxyBudsClient documents them): FD, a u16le
/// whose low 10 bits count id + payload + CRC and whose bits 12 and 13 are flags, the id, the
/// payload, CRC-16/XMODEM over id and payload (little-endian), DD.
final class PackedFrameTests: XCTestCase {
    let buds = FrameFormat(
        name: "buds", magic: [0xfd],
        header: [
            .word(
                width: 2, bigEndian: false,
                bits: [.init(.length, mask: 0x03ff), .init(.flags, mask: 0x3000)]),
            .command(width: 1, bigEndian: true),
        ],
        lengthCounts: .rest, checksum: bucksum, end: [0xdd], lengthAdjust: 1)

    static var bucksum: FrameFormat.Checksum {
        var c = FrameFormat.Checksum(.crc(CRCCatalogue.named("crc-16/xmodem")!), bigEndian: false)
        c.span = FrameFormat.Span(from: 3, to: nil)
        return c
    }

    /// Status updated (0x61) with battery 100 % and 90 %: length 7 (id, 4 bytes, CRC), the
    /// response bit set. CRC-16/XMODEM of 61 01 64 5a 01 is 0x73c7, written c7 73.
    let status: [UInt8] = [0xfd, 0x07, 0x10, 0x61, 0x01, 0x64, 0x5a, 0x01, 0xc7, 0x73, 0xdd]

    func testAGalaxyBudsFrameReadsItsLengthAndFlagsFromBits() throws {
        XCTAssertEqual(buds.encode(command: 0x61, flags: 0x01, payload: [0x01, 0x64, 0x5a, 0x01]), status)
        var stream = FramedStream(format: buds, detect: false)
        guard case .frame(let f)? = stream.push(status[...]).first else { return XCTFail("no frame") }
        XCTAssertEqual(f.flags, 0x01)
        XCTAssertEqual(f.command, 0x61)
        XCTAssertEqual(f.checksum, 0x73c7)
        XCTAssertTrue(f.checksumOK)
    }

    func testFramesWithBitFieldsAtEveryCut() {
        let extended = buds.encode(command: 0x60, payload: [0x0b, 0x00, 0x55, 0x50, 0x01])
        var broken = status
        broken[4] ^= 0x01
        let bytes = status + [0x00, 0x11] + extended + broken
        XCTAssertEqual(
            buds.outputs([bytes]),
            [
                "0x61 01645a01 ok=true",
                "a5.resync: skipped 2 bytes that do not form a frame, before the frame with command 0x60: "
                    + "expected the magic 0xfd, found 0x00",
                "0x60 0b00555001 ok=true", "0x61 00645a01 ok=false",
                "a5.checksum.bad: command 0x61: checksum 0x73c7, expected 0x0573",
            ])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { buds.outputs($0) }, [])
    }

    /// The checksum covers the id and payload only: a change in the header's flag bits is no
    /// checksum error, one in the id is.
    func testTheChecksumCoversItsRangeOnly() {
        var flagged = status
        flagged[2] = 0x20
        XCTAssertEqual(buds.outputs([flagged]), ["0x61 01645a01 ok=true"])
        var other = status
        other[3] = 0x62
        XCTAssertEqual(buds.outputs([other]).first, "0x62 01645a01 ok=false")
    }

    /// A checksum over the header alone (`{from: magic, to: length}`), still after the payload.
    func testAChecksumOverTheHeaderIgnoresThePayload() {
        var check = FrameFormat.Checksum(.xor8)
        check.span = FrameFormat.Span(from: 0, to: 3)
        let format = FrameFormat(
            name: "h", magic: [0x7e],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            checksum: check)
        let frame = format.encode(command: 0x05, payload: [0x10, 0x20])
        // 7e ^ 05 ^ 02 = 0x79.
        XCTAssertEqual(frame, [0x7e, 0x05, 0x02, 0x10, 0x20, 0x79])
        XCTAssertEqual(format.outputs([[0x7e, 0x05, 0x02, 0xff, 0xff, 0x79]]), ["0x05 ffff ok=true"])
    }

    /// A sequence and a 12-bit command in one u16be word (high nibble the sequence).
    func testASequenceAndCommandShareAWord() {
        let format = FrameFormat(
            name: "w", magic: [0xaa],
            header: [
                .word(
                    width: 2, bigEndian: true, bits: [.init(.sequence, mask: 0xf000), .init(.command, mask: 0x0fff)]),
                .length(width: 1, bigEndian: true),
            ],
            checksum: FrameFormat.Checksum(.sum8))
        let bytes = format.encode(command: 0x123, sequence: 5, payload: [0x01])
        XCTAssertEqual(Array(bytes.prefix(4)), [0xaa, 0x51, 0x23, 0x01])
        var stream = FramedStream(format: format, detect: false)
        guard case .frame(let f)? = stream.push(bytes[...]).first else { return XCTFail("no frame") }
        XCTAssertEqual(f.sequence, 5)
        XCTAssertEqual(f.command, 0x123)
    }
}
