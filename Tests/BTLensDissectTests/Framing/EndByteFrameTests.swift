import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Frames that end with fixed bytes after their payload: Jieli's RCSP (`FE DC BA`, flag, command,
/// length u16be, body, `EF`). The end byte is part of the frame, not junk before the next one,
/// and a candidate without it is no frame.
final class EndByteFrameTests: XCTestCase {
    let jieli = FrameFormat(
        name: "jieli", magic: [0xfe, 0xdc, 0xba],
        header: [.flags, .command(width: 1, bigEndian: true), .length(width: 2, bigEndian: true)], checksum: nil,
        end: [0xef])

    func testFramesEndWithTheirEndByteAtEveryCut() {
        let bytes =
            jieli.encode(command: 0x02, flags: 0xc0, payload: [0x01, 0xef]) + jieli.encode(command: 0x03, payload: [])
        XCTAssertEqual(Array(bytes.prefix(10)), [0xfe, 0xdc, 0xba, 0xc0, 0x02, 0x00, 0x02, 0x01, 0xef, 0xef])
        XCTAssertEqual(jieli.outputs([bytes]), ["0x02 01ef ok=true", "0x03  ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { jieli.outputs($0) }, [])
    }

    /// A candidate whose end byte is wrong is not a frame: the framer moves on to the next magic.
    func testAWrongEndByteIsNoFrame() {
        var broken = jieli.encode(command: 0x02, payload: [0x01])
        broken[broken.count - 1] = 0x00
        let good = jieli.encode(command: 0x03, payload: [0x04])
        XCTAssertEqual(
            jieli.outputs([broken + good]),
            [
                "a5.resync: skipped 9 bytes that do not form a frame, before the frame with command 0x03: "
                    + "expected the end 0xef after 8 bytes, found other bytes",
                "0x03 04 ok=true",
            ])
    }

    /// A length that counts the whole frame counts the end bytes too (xor8 over 55 07 07 61 is 0x34).
    func testALengthOfTheWholeFrameCountsTheEnd() {
        let whole = FrameFormat(
            name: "w", magic: [0x55],
            header: [.command(width: 1, bigEndian: true), .length(width: 1, bigEndian: true)],
            lengthCounts: .frame, checksum: FrameFormat.Checksum(.xor8), end: [0x0d, 0x0a])
        let bytes = whole.encode(command: 0x07, payload: [0x61])
        XCTAssertEqual(bytes, [0x55, 0x07, 0x07, 0x61, 0x34, 0x0d, 0x0a])
        XCTAssertEqual(whole.outputs([bytes]), ["0x07 61 ok=true"])
    }
}
