import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// A guess about what a channel carries (iAP2 from SDP or from the first bytes, RFCOMM on a channel
/// with no captured setup) is withdrawn at the first packet that contradicts it, said once, and the
/// channel's bytes from its start are shown: none is lost.
final class ChannelGuessTests: XCTestCase {
    /// What the tests compare: diagnostics as `#record id`, undecoded events as `#record direction what: hex`.
    func outline(_ bytes: [UInt8], limits: Limits = Limits()) throws -> [String] {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var lines: [String] = []
        try Pipeline.run(&reader, Configuration(lowerLayers: false, limits: limits)) { e in
            switch e.body {
            case .diagnostic(let d): lines.append("#\(e.record) \(d.id)")
            case .undecoded(let u):
                lines.append("#\(e.record) \(e.direction?.name ?? "-") \(u.what): \(Hex.string(u.bytes))")
            case .iap2(let p): lines.append("#\(e.record) iap2 \(p.kind)")
            case .rfcomm(let f) where f.length > 0:
                lines.append("#\(e.record) rfcomm DLCI \(f.dlci) \(f.frame) \(f.length)")
            default: break
            }
        }
        return lines
    }

    func testASerialPortChannelWhoseSDPRecordListsIAP2IsShownWhole() throws {
        let session = SampleCaptures.sppWithIAP2Class()
        var reader = try CaptureFormat.open(MemorySource(session.bytes))
        var events: [Event] = []
        try Pipeline.run(&reader, Configuration(lowerLayers: false)) { events.append($0) }
        let diagnostics = events.compactMap { e in e.diagnostic.map { (e.record, $0) } }
        XCTAssertEqual(diagnostics.map { "#\($0.0) \($0.1.id)" }, ["#15 rfcomm.channel.guess_withdrawn"])
        XCTAssertEqual(
            diagnostics.first?.1.message,
            "RFCOMM channel 1 was taken for iAP2 (its SDP record lists the iAP2 service class), but its sent data begins 00 01 00 10 00: bytes that form no iAP2 packet, where the detect bytes FF 55 02 00 EE 10 or a link packet FF 5A were expected. Its 5 bytes so far, and all that follow, are shown as RFCOMM data (--decode-as rfcomm:1=iap2 overrides)"
        )
        // Every frame is an undecoded event at its own record, whole, in its direction.
        let undecoded = events.compactMap { e -> String? in
            guard case .undecoded(let u) = e.body else { return nil }
            return "#\(e.record) \(e.direction?.name ?? "-") \(u.what) \(u.length) \(Hex.string(u.bytes))"
        }
        let expected = SampleCaptures.sppMessages.enumerated().map { i, m in
            "#\(15 + i) \(m.0.name) RFCOMM channel 1 \(m.1.count) \(Hex.string(m.1))"
        }
        XCTAssertEqual(undecoded, expected)
        XCTAssertEqual(SampleCaptures.sppMessages.count, 14)
        XCTAssertEqual(SampleCaptures.sppMessages.reduce(0) { $0 + $1.1.count }, 427)
        XCTAssertFalse(events.contains { if case .iap2 = $0.body { return true } else { return false } })
        // stats: the 427 bytes under the channel, and nothing else undecoded.
        reader = try CaptureFormat.open(MemorySource(session.bytes))
        let stats = StatsCollector(file: "spp", info: reader.info)
        try Pipeline.run(
            &reader, Configuration(detail: .counts),
            onRecord: stats.record, onProblem: stats.problem, onEvent: stats.event)
        XCTAssertEqual(stats.undecodedBytes, 427)
        XCTAssertEqual(stats.undecodedByWhat, ["RFCOMM channel 1": 427])
    }

    /// A session with RFCOMM channel 1 (DLCI 2) open, its SDP record saying iAP2 or not.
    func channel(sdpSaysIAP2: Bool, _ script: (inout LESession) -> Void) -> [UInt8] {
        var s = LESession()
        let h: UInt16 = 0x000d
        s.connectBREDR(handle: h, address: [1, 2, 3, 4, 5, 6])
        if sdpSaysIAP2 {
            s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x40, 0x00])
            s.l2cap(
                handle: h, .received, cid: 0x0001,
                [0x03, 0x01, 0x08, 0x00, 0x70, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
            s.l2cap(handle: h, .received, cid: 0x0040, SampleCaptures.sdpResponse(), fragment: 1021)
        }
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        script(&s)
        s.disconnect(handle: h)
        return s.bytes
    }

    func data(_ s: inout LESession, _ direction: Direction, _ bytes: [UInt8]) {
        s.rfcomm(handle: 0x000d, direction, cid: direction == .sent ? 0x0071 : 0x0041, dlci: 2, control: 0xef, bytes)
    }

    func testBytesHeldWhileTheGuessStoodAreShownFromTheStart() throws {
        // SDP says iAP2; the phone's first frame is the start of a link header (held), the watch's
        // first frame is no iAP2 at all: withdrawn there, both shown at their own records.
        let bytes = channel(sdpSaysIAP2: true) { s in
            data(&s, .sent, [0xff, 0x5a, 0x00])
            data(&s, .received, [0x00, 0x01, 0x00, 0x10, 0x00])
            data(&s, .sent, [0x01, 0x02])
        }
        XCTAssertEqual(
            try outline(bytes),
            [
                "#9 rfcomm DLCI 2 UIH 3", "#10 rfcomm DLCI 2 UIH 5", "#10 rfcomm.channel.guess_withdrawn",
                "#9 sent RFCOMM channel 1: ff5a00", "#10 received RFCOMM channel 1: 0001001000",
                "#11 rfcomm DLCI 2 UIH 2", "#11 sent RFCOMM channel 1: 0102",
            ])
    }

    func testAGuessTheDataConfirmsDecodesTheHeldBytes() throws {
        // The detect bytes split over two frames: held at the first, confirmed at the second.
        let detect = IAP2Framer.detectBytes
        let bytes = channel(sdpSaysIAP2: true) { s in
            data(&s, .received, Array(detect.prefix(2)))
            data(&s, .received, Array(detect.dropFirst(2)))
            data(&s, .received, [0x00])
        }
        XCTAssertEqual(
            try outline(bytes),
            [
                "#9 rfcomm DLCI 2 UIH 2", "#10 rfcomm DLCI 2 UIH 4", "#10 iap2 detect",
                // Once confirmed, stray bytes are the link's: skipped and said, as before.
                "#11 rfcomm DLCI 2 UIH 1", "#14 iap2.resync",
            ])
    }

    func testAGuessFromTheFirstBytesIsWithdrawnWhenItsFirstPacketFails() throws {
        // No SDP: a valid link header makes the guess; its payload checksum fails: withdrawn.
        var packet = IAP2LinkPacket.encode(
            control: 0x40, psn: 1, pan: 0, session: 1, payload: [0x40, 0x40, 0x00, 0x06, 0x1d, 0x00])
        packet[packet.count - 1] &+= 1
        let bytes = channel(sdpSaysIAP2: false) { s in
            data(&s, .received, Array(packet.prefix(10)))
            data(&s, .received, Array(packet.dropFirst(10)))
        }
        let lines = try outline(bytes)
        XCTAssertEqual(
            lines,
            [
                "#6 rfcomm DLCI 2 UIH 10", "#7 rfcomm DLCI 2 UIH 6", "#7 rfcomm.channel.guess_withdrawn",
                "#6 received RFCOMM channel 1: \(Hex.string(packet.prefix(10)))",
                "#7 received RFCOMM channel 1: \(Hex.string(packet.dropFirst(10)))",
            ])
    }

    func testFirstBytesThatNeverLookedLikeIAP2AreShownAndNothingIsSaid() throws {
        let bytes = channel(sdpSaysIAP2: false) { s in
            data(&s, .sent, [0xff])
            data(&s, .sent, [0x01, 0x02])
            // And a channel whose first byte may start iAP2 when the connection ends: shown, not lost.
            s.rfcomm(handle: 0x000d, .received, cid: 0x0041, dlci: 4, control: 0xef, [0xff, 0x5a, 0x00])
        }
        XCTAssertEqual(
            try outline(bytes),
            [
                "#6 rfcomm DLCI 2 UIH 1", "#7 rfcomm DLCI 2 UIH 2", "#6 sent RFCOMM channel 1: ff",
                "#7 sent RFCOMM channel 1: 0102",
                "#8 rfcomm DLCI 4 UIH 3", "#8 received RFCOMM channel 2: ff5a00",
            ])
    }

    func testAGuessThatWouldHoldPastTheLimitIsWithdrawn() throws {
        let bytes = channel(sdpSaysIAP2: true) { s in
            data(&s, .received, [0xff, 0x5a, 0x00, 0x40])
            data(&s, .received, [0x40, 0x01, 0x00, 0x01])
        }
        var limits = Limits()
        limits.guessBytes = 6
        XCTAssertEqual(
            try outline(bytes, limits: limits),
            [
                "#9 rfcomm DLCI 2 UIH 4", "#10 rfcomm DLCI 2 UIH 4", "#10 rfcomm.channel.guess_withdrawn",
                "#9 received RFCOMM channel 1: ff5a0040", "#10 received RFCOMM channel 1: 40010001",
            ])
        XCTAssertEqual(try outline(bytes).suffix(2), ["#10 rfcomm DLCI 2 UIH 4", "#13 iap2.truncated"])
    }

    // MARK: L2CAP → RFCOMM

    /// No signalling: CID 0x0040 carries what it carries.
    func unsignalled(_ pdus: [[UInt8]]) -> [UInt8] {
        var s = LESession()
        s.connectBREDR(handle: 0x000e, address: [1, 2, 3, 4, 5, 6])
        for p in pdus { s.l2cap(handle: 0x000e, .received, cid: 0x0040, p) }
        s.disconnect(handle: 0x000e)
        return s.bytes
    }

    /// UIH on DLCI 2 with `info`: address 0x0b (EA, C/R, DLCI 2), control 0xef, length, FCS over address and control (TS 07.10).
    func uih(_ info: [UInt8]) -> [UInt8] {
        [0x0b, 0xef, UInt8(info.count << 1 | 1)] + info + [RFCOMMFrame.fcs([0x0b, 0xef])]
    }

    func testAnRFCOMMGuessThatTheNextPDUContradictsIsWithdrawn() throws {
        let bytes = unsignalled([uih([0x41, 0x54]), [0x80, 0x60, 0x00, 0x01, 0x02], [0x80, 0x60, 0x00, 0x02, 0x03]])
        XCTAssertEqual(
            try outline(bytes),
            [
                "#4 l2cap.channel.guessed", "#5 l2cap.channel.guess_withdrawn",
                "#4 received Dynamic channel 0x0040: \(Hex.string(uih([0x41, 0x54])))",
                "#5 received Dynamic channel 0x0040: 8060000102",
                "#6 received Dynamic channel 0x0040: 8060000203",
            ])
    }

    func testAnRFCOMMGuessThatTheNextPDUConfirmsIsDecodedInOrder() throws {
        let bytes = unsignalled([uih([0x01, 0x02]), uih([0x03])])
        XCTAssertEqual(
            try outline(bytes),
            [
                "#4 l2cap.channel.guessed",
                "#4 rfcomm DLCI 2 UIH 2", "#4 received RFCOMM channel 1: 0102", "#5 rfcomm DLCI 2 UIH 1",
                "#5 received RFCOMM channel 1: 03",
            ])
        // A lone frame: nothing contradicted the guess; it stands when the connection ends.
        XCTAssertEqual(
            try outline(unsignalled([uih([0x01, 0x02])])),
            [
                "#4 l2cap.channel.guessed", "#4 rfcomm DLCI 2 UIH 2", "#4 received RFCOMM channel 1: 0102",
            ])
    }
}
