import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// The sample headset capture end to end: AVDTP's stream states and media count, AVRCP and HFP
/// on their channels, and the connection summary.
final class HeadphoneAudioTests: XCTestCase {
    private func profile(_ events: [Event]) -> [(record: Int, message: ProfileMessage)] {
        events.compactMap { e in
            guard case .profile(let m) = e.body else { return nil }
            return (e.record, m)
        }
    }

    private func field(_ m: ProfileMessage, _ name: String) -> FieldValue? { m.fields.first { $0.0 == name }?.1 }

    func testStreamStatesFollowTheAcceptedSignals() throws {
        let events = try analyze(SampleCaptures.headphoneAudio().bytes)
        let states = profile(events).compactMap { p -> String? in
            guard case .string(let state)? = field(p.message, "stream_state") else { return nil }
            return "\(p.message.name) \(state)"
        }
        XCTAssertEqual(
            states, ["Set Configuration configured", "Open open", "Start streaming", "Suspend open", "Close idle"])
    }

    func testMediaIsCountedOnceWhenTheStreamStops() throws {
        let events = try analyze(SampleCaptures.headphoneAudio().bytes)
        let media = profile(events).filter { $0.message.profile == .avdtpMedia }
        XCTAssertEqual(media.count, 1)
        guard let m = media.first?.message else { return }
        // 24 packets of 12 (RTP) + 4 (SBC header and frame start) + 60 bytes; 103 and 104 lost.
        XCTAssertEqual(field(m, "packets"), .int(24))
        XCTAssertEqual(field(m, "bytes"), .int(24 * 76))
        XCTAssertEqual(field(m, "lost"), .int(2))
        XCTAssertEqual(field(m, "seid"), .int(1))
        XCTAssertEqual(field(m, "codec"), .string("SBC 48000 Hz joint stereo, bitpool 2-53"))
        // At the Suspend accept, after it.
        let suspend = profile(events).first { $0.message.name == "Suspend" && field($0.message, "stream_state") != nil }
        XCTAssertEqual(media.first?.record, suspend?.record)
        XCTAssertFalse(events.contains { if case .undecoded = $0.body { true } else { false } })
    }

    func testTheConnectionSummaryKeepsTheStream() throws {
        let s = SampleCaptures.headphoneAudio()
        var reader = try CaptureFormat.open(MemorySource(s.bytes))
        let analyzer = Analyzer { _ in }
        while let item = try reader.next() { analyzer.process(item) }
        analyzer.finish()
        let stream = analyzer.connectionSummaries.first?.lifecycle.audioStreams
        XCTAssertEqual(stream?.map(\.state), ["idle"])
        XCTAssertEqual(stream?.map(\.packets), [24])
        XCTAssertEqual(stream?.map(\.codec), ["SBC 48000 Hz joint stereo, bitpool 2-53"])
    }

    /// Two endpoints opened one after the other, each with its transport channel (AVDTP 1.3
    /// §5.4.2): each channel's media is counted for its own endpoint; a Reconfigure of the first
    /// changes the codec its next media is counted with.
    func testTwoStreamsAreCountedApartAndReconfigureChangesTheCodec() throws {
        var s = LESession()
        let h: UInt16 = 0x000c
        s.connectBREDR(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        var id: UInt8 = 0
        func open(_ ours: UInt16, _ theirs: UInt16) {
            id += 1
            s.l2cap(handle: h, .sent, cid: 1, [0x02, id, 0x04, 0x00, 0x19, 0x00, UInt8(ours), 0x00])
            s.l2cap(
                handle: h, .received, cid: 1,
                [0x03, id, 0x08, 0x00, UInt8(theirs), 0x00, UInt8(ours), 0x00, 0x00, 0x00, 0x00, 0x00])
        }
        func signal(_ label: UInt8, _ id: UInt8, _ parameters: [UInt8]) {
            s.l2cap(handle: h, .sent, cid: 0x0072, [label << 4, id] + parameters)
            s.l2cap(handle: h, .received, cid: 0x0042, [label << 4 | 2, id])
        }
        func media(_ cid: UInt16, _ count: Int) {
            for n in 0..<count {
                s.l2cap(handle: h, .sent, cid: cid, [0x80, 0x60, 0x00, UInt8(n), 0, 0, 0, 0, 0, 0, 0, 1, 0x01, 0x9c])
            }
        }
        // SBC capabilities: 48 kHz joint stereo, 16 blocks, 8 subbands, loudness, bitpool 2–53 (A2DP 1.3 §4.3.2).
        let sbc48: [UInt8] = [0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x11, 0x15, 0x02, 0x35]
        let sbc44: [UInt8] = [0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35]
        open(0x42, 0x72)
        signal(1, 0x03, [0x04, 0x04] + sbc48)  // Set Configuration SEID 1
        signal(2, 0x03, [0x08, 0x08] + sbc48)  // Set Configuration SEID 2
        signal(3, 0x06, [0x04])  // Open SEID 1, then its channel
        open(0x43, 0x73)
        signal(4, 0x06, [0x08])  // Open SEID 2, then its channel
        open(0x44, 0x74)
        signal(5, 0x07, [0x04, 0x08])  // Start both
        media(0x0073, 3)
        media(0x0074, 2)
        signal(6, 0x09, [0x04])  // Suspend SEID 1
        signal(7, 0x05, [0x04] + sbc44)  // Reconfigure SEID 1
        signal(8, 0x07, [0x04])  // Start SEID 1
        media(0x0073, 1)
        s.disconnect(handle: h)
        let events = try analyze(s.bytes)
        let counted = profile(events).filter { $0.message.profile == .avdtpMedia }.map { p in
            ["seid", "packets", "codec"].map { field(p.message, $0).map { "\($0)" } ?? "-" }.joined(separator: " ")
        }
        XCTAssertEqual(
            counted,
            [
                "\(FieldValue.int(1)) \(FieldValue.int(3)) \(FieldValue.string("SBC 48000 Hz joint stereo, bitpool 2-53"))",
                "\(FieldValue.int(1)) \(FieldValue.int(1)) \(FieldValue.string("SBC 44100 Hz joint stereo, bitpool 2-53"))",
                "\(FieldValue.int(2)) \(FieldValue.int(2)) \(FieldValue.string("SBC 48000 Hz joint stereo, bitpool 2-53"))",
            ])
    }

    /// A capture that begins after the channels were opened: `--decode-as` names the signalling
    /// and media channels, and media still streaming at disconnection is summed up there.
    func testDecodeAsChannelsWithNoCapturedSetup() throws {
        var s = LESession()
        s.connectBREDR(handle: 0x000c, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.l2cap(handle: 0x000c, .sent, cid: 0x0072, [0x50, 0x07, 0x04])  // Start
        s.l2cap(handle: 0x000c, .received, cid: 0x0042, [0x52, 0x07])
        for sequence in 0..<3 {
            s.l2cap(
                handle: 0x000c, .sent, cid: 0x0073,
                [0x80, 0x60, 0x00, UInt8(sequence), 0, 0, 0, 0, 0, 0, 0, 1, 0x01, 0x9c])
        }
        s.disconnect(handle: 0x000c)
        let events = try analyze(
            s.bytes, decodeAs: [.cid(0x0072, psm: PSM.avdtp), .cid(0x0042, psm: PSM.avdtp), .avdtpMedia(cid: 0x0073)])
        let names = profile(events).map { "\($0.message.name) \(field($0.message, "packets").map { "\($0)" } ?? "")" }
        XCTAssertEqual(names, ["Start ", "Start ", "Media \(FieldValue.int(3))"])
        XCTAssertFalse(events.contains { if case .undecoded = $0.body { true } else { false } })
    }
}
