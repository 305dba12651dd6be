import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Messages sent in frames that each say another follows, as ESP BluFi's (Espressif's BluFi
/// documentation): type, frame control (0x10: a fragment follows; 0x02: a checksum is present),
/// sequence, data length, data; a fragment's data begins with the message's total length (u16le).
final class MoreFollowsTests: XCTestCase {
    let blufi: FrameFormat = {
        var check = FrameFormat.Checksum(.crc(CRCCatalogue.named("crc-16/genibus")!), bigEndian: false)
        check.span = FrameFormat.Span(from: 2, to: nil)
        check.flag = 0x02
        return FrameFormat(
            name: "blufi", magic: [],
            header: [.command(width: 1, bigEndian: true), .flags, .sequence, .length(width: 1, bigEndian: true)],
            checksum: check, more: FrameFormat.MoreFollows(flag: 0x10, totalWidth: 2))
    }()

    /// STA SSID (type 0x09) "myssid" in two frames: 3 + 3 bytes, the first with 0x10 and total 6.
    let first: [UInt8] = [0x09, 0x10, 0x00, 0x05, 0x06, 0x00, 0x6d, 0x79, 0x73]
    let second: [UInt8] = [0x09, 0x00, 0x01, 0x03, 0x73, 0x69, 0x64]

    func testFlaggedFramesAreJoinedAtEveryCut() {
        // SetOpMode (0x08) STA with its checksum: CRC-16/GENIBUS of 02 01 01 is 0x7e13, le.
        let opMode: [UInt8] = [0x08, 0x02, 0x02, 0x01, 0x01, 0x13, 0x7e]
        let bytes = first + second + opMode
        XCTAssertEqual(blufi.outputs([bytes]), ["0x09 6d7973736964 ok=true", "0x08 01 ok=true"])
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { blufi.outputs($0) }, [])
        var stream = FramedStream(format: blufi, detect: false)
        guard case .frame(let joined)? = stream.push((first + second)[...]).first else { return XCTFail("no message") }
        XCTAssertEqual(joined.fragment?.count, 2)
        XCTAssertEqual(joined.sequence, 0)
        var bad = opMode
        bad[5] = 0x14
        XCTAssertEqual(
            blufi.outputs([bad]),
            ["0x08 01 ok=false", "a5.checksum.bad: command 0x08 sequence 2: checksum 0x7e14, expected 0x7e13"])
    }

    /// A message whose last frame never comes, or whose frames hold other than its total.
    func testBrokenMessagesAreMissing() {
        XCTAssertEqual(
            blufi.outputs([first]),
            [
                "a5.fragment.missing: message 0x09 sequence 0: 1 frames, then the stream ended (the end); 9 bytes dropped"
            ])
        var short = second
        short[3] = 0x02
        short.removeLast()
        XCTAssertEqual(
            blufi.outputs([first + short]),
            [
                "a5.fragment.missing: message 0x09 sequence 0: 2 frames, then 5 of its 6 bytes at its last frame; 15 bytes dropped"
            ])
    }
}
