import BTLensCore
import XCTest

@testable import BTLensDissect

/// Fragmented AVDTP signalling (AVDTP 1.3 §8.4.2–8.4.4): a Start packet (header with packet type
/// 0b01, the number of signal packets, the signal identifier), Continue (0b10) and End (0b11)
/// packets of one header octet each, then the parameters' next bytes.
final class AVDTPAssemblerTests: XCTestCase {
    /// A Get All Capabilities response (§8.8.2), transaction 3: Media Transport, SBC, SCMS-T,
    /// Delay Reporting, a second codec (aptX), 29 bytes.
    static let message = AVDTPTests.bytes(
        "32 0c 01 00 07 06 00 00 ff ff 02 35 04 02 02 00 08 00 07 09 00 ff 4f 00 00 00 01 00 f2")

    /// The message cut at `cuts` (offsets into its parameters) into Start, Continue… and End packets.
    static func packets(_ message: [UInt8], cuts: [Int], announced: Int? = nil) -> [[UInt8]] {
        let header = message[0]
        let signal = message[1]
        let parameters = Array(message.dropFirst(2))
        let bounds = [0] + cuts + [parameters.count]
        var packets: [[UInt8]] = []
        for i in 0..<bounds.count - 1 {
            let part = Array(parameters[bounds[i]..<bounds[i + 1]])
            switch i {
            case 0: packets.append([header | 0x04, UInt8(announced ?? bounds.count - 1), signal] + part)
            case bounds.count - 2: packets.append([header | 0x0c] + part)
            default: packets.append([header | 0x08] + part)
            }
        }
        return packets
    }

    private func feed(_ packets: [[UInt8]], into assembler: inout AVDTPAssembler) -> [AVDTPAssembler.Output] {
        packets.map { assembler.push($0[...]) }
    }

    func testWholeAndSplitAtEveryBoundaryDecodeAlike() throws {
        let whole = AVDTPTests.describe(try AVDTPSignal(Self.message[...]))
        XCTAssertEqual(
            whole,
            "Get All Capabilities; transaction=3; message_type=accept; signal=0x0c; services=Media Transport, Media Codec, Content Protection, Delay Reporting, Media Codec; media_type=audio; codec=SBC; sampling_frequencies=16000 32000 44100 48000; channel_modes=mono, dual channel, stereo, joint stereo; block_lengths=4 8 12 16; subbands=4 8; allocation=SNR, loudness; bitpool_min=2; bitpool_max=53; content_protection=SCMS-T"
        )
        var assembler = AVDTPAssembler()
        let single = assembler.push(Self.message[...])
        XCTAssertEqual(single.message.map(Array.init), Self.message)
        XCTAssertTrue(single.diagnostics.isEmpty)
        let length = Self.message.count - 2
        var splits = (0...length).map { [$0] }
        for a in 0...length { for b in a...length { splits.append([a, b]) } }
        splits.append(Array(1..<length))
        for cuts in splits {
            let outputs = feed(Self.packets(Self.message, cuts: cuts), into: &assembler)
            XCTAssertTrue(outputs.dropLast().allSatisfy { $0.message == nil && $0.diagnostics.isEmpty }, "\(cuts)")
            XCTAssertEqual(assembler.heldBytes, 0)
            guard let last = outputs.last, let message = last.message else { return XCTFail("\(cuts)") }
            XCTAssertTrue(last.diagnostics.isEmpty, "\(cuts)")
            XCTAssertEqual(Array(message), Self.message, "\(cuts)")
            XCTAssertEqual(AVDTPTests.describe(try AVDTPSignal(message)), whole)
        }
    }

    func testContinueOrEndWithoutStart() {
        var assembler = AVDTPAssembler()
        // A Continue (0x38) and an End (0x3e, an accept) with no Start before them.
        let out = assembler.push([0x38, 0x01, 0x02][...])
        XCTAssertNil(out.message)
        XCTAssertEqual(out.diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
        XCTAssertEqual(
            out.diagnostics.first?.message,
            "AVDTP Continue packet of transaction 3: a Start packet expected before it, found none; not decoded")
        XCTAssertEqual(out.diagnostics.first?.undecodedBytes, 3)
        XCTAssertEqual(out.diagnostics.first?.severity, .warning)
        XCTAssertEqual(assembler.push([0x3e][...]).diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
    }

    func testStartOrSingleWhilePending() {
        var assembler = AVDTPAssembler()
        let packets = Self.packets(Self.message, cuts: [5, 10])
        _ = assembler.push(packets[0][...])
        // Another Start: the first message is dropped, the new one held.
        let restart = assembler.push(packets[0][...])
        XCTAssertEqual(restart.diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
        XCTAssertEqual(
            restart.diagnostics.first?.message,
            "AVDTP Get All Capabilities message of 1 packet: an End packet expected, found another Start packet; not decoded"
        )
        XCTAssertEqual(restart.diagnostics.first?.undecodedBytes, packets[0].count)
        XCTAssertEqual(assembler.heldBytes, 2 + 5)
        // A Single packet: the held message is dropped, the single one returned.
        let single = assembler.push([0x40, 0x01][...])
        XCTAssertEqual(single.message.map(Array.init), [0x40, 0x01])
        XCTAssertEqual(single.diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
        XCTAssertEqual(assembler.heldBytes, 0)
        XCTAssertEqual(assembler.push(packets[1][...]).diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
    }

    func testAFragmentOfAnotherTransaction() {
        var assembler = AVDTPAssembler()
        let packets = Self.packets(Self.message, cuts: [5])
        _ = assembler.push(packets[0][...])
        // An End of transaction 4: the held message of transaction 3 and the End are both dropped.
        var other = packets[1]
        other[0] = 0x4e
        let out = assembler.push(other[...])
        XCTAssertNil(out.message)
        XCTAssertEqual(out.diagnostics.map(\.id), ["avdtp.fragment.unexpected", "avdtp.fragment.unexpected"])
        XCTAssertEqual(
            out.diagnostics.first?.message,
            "AVDTP Get All Capabilities message of 1 packet: an End packet expected, found an End packet of transaction 4, message type 2; not decoded"
        )
        XCTAssertEqual(out.diagnostics.map(\.undecodedBytes), [packets[0].count, other.count])
        XCTAssertEqual(assembler.heldBytes, 0)
    }

    func testPacketCountDiffersFromStart() throws {
        var assembler = AVDTPAssembler()
        let outputs = feed(Self.packets(Self.message, cuts: [5, 10], announced: 2), into: &assembler)
        let last = try XCTUnwrap(outputs.last)
        XCTAssertEqual(last.message.map(Array.init), Self.message)
        XCTAssertEqual(last.diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
        XCTAssertEqual(
            last.diagnostics.first?.message, "AVDTP Get All Capabilities message: 2 packets announced, 3 found")
        XCTAssertEqual(last.diagnostics.first?.undecodedBytes, 0)
    }

    func testShortStartAndEmptyPacket() {
        var assembler = AVDTPAssembler()
        // A Start packet needs the number of packets and the signal identifier.
        let short = assembler.push([0x34, 0x02][...])
        XCTAssertEqual(short.diagnostics.map(\.id), ["avdtp.malformed"])
        XCTAssertEqual(
            short.diagnostics.first?.message, "AVDTP Start packet of 2 bytes: needs 2 bytes at offset 1, found 1")
        XCTAssertEqual(assembler.heldBytes, 0)
        XCTAssertEqual(assembler.push([][...]).diagnostics.map(\.id), ["avdtp.malformed"])
    }

    func testAMessagePastTheLimitIsDropped() {
        var assembler = AVDTPAssembler()
        let chunk = [UInt8](repeating: 0x00, count: 30_000)
        XCTAssertTrue(assembler.push(([0x34, 4, 0x0c] + chunk)[...]).diagnostics.isEmpty)
        XCTAssertTrue(assembler.push(([0x38] + chunk)[...]).diagnostics.isEmpty)
        // 90,002 bytes joined: past 65,536.
        let over = assembler.push(([0x38] + chunk)[...])
        XCTAssertEqual(over.diagnostics.map(\.id), ["avdtp.fragment.limit"])
        XCTAssertEqual(
            over.diagnostics.first?.message,
            "AVDTP Get All Capabilities message of 3 packets: 90002 bytes, at most 65536 expected; not decoded")
        XCTAssertEqual(over.diagnostics.first?.undecodedBytes, 3 * 30_001 + 2)
        XCTAssertEqual(assembler.heldBytes, 0)
        // Its End is skipped without another diagnostic; what follows is decoded.
        let end = assembler.push([0x3c, 0x00][...])
        XCTAssertEqual(end.skipped, 2)
        XCTAssertTrue(end.diagnostics.isEmpty)
        XCTAssertEqual(assembler.push([0x3c][...]).diagnostics.map(\.id), ["avdtp.fragment.unexpected"])
        XCTAssertNotNil(assembler.push([0x40, 0x01][...]).message)
    }
}
