import BTLensCore
import XCTest

@testable import BTLensDissect

/// `a5.resync` says why its bytes were skipped: what the framing expected where the first of them
/// was, and what it found (the other reasons are pinned where their framing is tested).
final class ResyncReasonTests: XCTestCase {
    /// Out of sync, an A5 candidate whose checksum does not hold is no frame (docs/protocols/a5-frame.md).
    func testACandidateWithABadChecksumOutOfSync() {
        let good = FrameFormat.a5.encode(command: 0x20, sequence: 7, payload: [0x01])
        var bad = FrameFormat.a5.encode(command: 0x21, sequence: 6, payload: [0x02])
        bad[bad.count - 1] &+= 1
        XCTAssertEqual(
            FrameFormat.a5.outputs([[0x00] + bad + good]),
            [
                "a5.resync: skipped 9 bytes that do not form a frame, before the frame with sequence 7: "
                    + "expected the magic 0xa5, found 0x00",
                "0x20 01 ok=true",
            ])
        // After lost bytes the framer is out of sync with nothing skipped: the bad candidate is
        // the first reason.
        var framer = MessageFramer()
        framer.loseSync()
        framer.append(bad + good)
        let step = framer.next()
        XCTAssertEqual(step?.skipped, bad.count)
        XCTAssertEqual(step?.skipReason, .checksum(found: UInt32(bad.last!), computed: UInt32(bad.last! &- 1)))
        XCTAssertEqual(
            step?.skipReason?.text(.a5, limit: framer.frameLimit),
            "out of sync, expected a frame whose checksum holds, found 0x\(Hex.string([bad.last!])) "
                + "where its bytes give 0x\(Hex.string([bad.last! &- 1]))")
    }

    /// A two-byte magic whose first byte comes alone.
    func testAMagicCutShort() {
        let format = FrameFormat(
            name: "aa55", magic: [0xaa, 0x55],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            checksum: FrameFormat.Checksum(.sum8))
        let good = format.encode(command: 0x10, payload: [])
        XCTAssertEqual(
            format.outputs([[0xaa, 0x00] + good]),
            [
                "a5.resync: skipped 2 bytes that do not form a frame, before the frame with command 0x10: "
                    + "expected the magic 0xaa55, found its first byte alone",
                "0x10  ok=true",
            ])
    }

    /// SLIP (RFC 1055): `DB` followed by anything but `DC` or `DD` stands for no byte.
    func testAnEscapeThatStandsForNothing() {
        let slip = FrameFormat(
            name: "slip", magic: [], header: [.command(width: 1, bigEndian: true)], checksum: nil,
            delimiting: .slip)
        XCTAssertEqual(
            slip.outputs([[0x01, 0xdb, 0x00, 0xc0, 0x02, 0xc0]]),
            [
                "a5.resync: skipped 4 bytes that do not form a frame, before the frame with command 0x02: "
                    + "expected an escape followed by a byte it stands for, found one that stands for none",
                "0x02  ok=true",
            ])
    }
}
