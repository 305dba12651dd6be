import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// A phone and a stereo headset on BR/EDR, as a headphone's bug ticket shows them: HFP's service
    /// level connection with mSBC chosen and the eSCO link it leads to, A2DP set up with AVDTP
    /// (Discover, Get Capabilities, Set Configuration SBC 48 kHz joint stereo, Open, Start), 24 media
    /// packets with two lost, AVRCP (capabilities, a play-status notification, Play pressed and
    /// released, absolute volume, now-playing metadata with a quote and a control character), then
    /// Suspend and Close. Each PDU is from its specification's message format, cited where built.
    public static func headphoneAudio() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x000c
        s.connectBREDR(handle: h, address: peer)
        // The L2CAP signalling identifier, one per request across the whole link.
        var id: UInt8 = 0
        headphoneHFP(&s, h, &id)
        headphoneA2DPSetup(&s, h, &id)
        headphoneAVRCP(&s, h, &id)
        headphoneA2DPMedia(&s, h)
        s.disconnect(handle: h)
        return s
    }

    /// A channel to `psm`: our CID `ours`, theirs `theirs` (Core Vol 3 Part A §4.2, §4.3).
    private static func headphoneOpen(
        _ s: inout LESession, _ h: UInt16, _ id: inout UInt8, _ psm: UInt16, ours: UInt16, theirs: UInt16,
        byThem: Bool = false
    ) {
        id += 1
        let (ask, answer): (Direction, Direction) = byThem ? (.received, .sent) : (.sent, .received)
        let (asker, answerer) = byThem ? (theirs, ours) : (ours, theirs)
        s.l2cap(handle: h, ask, cid: 0x0001, [0x02, id, 0x04, 0x00] + le16(Int(psm)) + le16(Int(asker)))
        s.l2cap(
            handle: h, answer, cid: 0x0001,
            [0x03, id, 0x08, 0x00] + le16(Int(answerer)) + le16(Int(asker)) + [0x00, 0x00, 0x00, 0x00])
    }

    /// HFP: RFCOMM to the headset's Handsfree service on channel 3, its service level connection
    /// (HFP 1.9 §4.2.1), codec negotiation (§4.11.3) and the eSCO link (Core Vol 4 Part E §7.7.35).
    private static func headphoneHFP(_ s: inout LESession, _ h: UInt16, _ id: inout UInt8) {
        headphoneOpen(&s, h, &id, 0x0001, ours: 0x0040, theirs: 0x0070)
        s.l2cap(handle: h, .received, cid: 0x0040, sdpResponse(classes: [0x19, 0x11, 0x1e], channel: 3))
        headphoneOpen(&s, h, &id, 0x0003, ours: 0x0041, theirs: 0x0071)
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 0, control: 0x73)
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 6, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 6, control: 0x73)
        func at(_ direction: Direction, _ line: String) {
            s.rfcommStream(handle: h, direction, cid: direction == .sent ? 0x0071 : 0x0041, dlci: 6, Array(line.utf8))
        }
        at(.received, "AT+BRSF=191\r")
        at(.sent, "\r\n+BRSF: 871\r\n\r\nOK\r\n")
        at(.received, "AT+BAC=1,2\r")
        at(.sent, "\r\nOK\r\n")
        at(.received, "AT+CIND=?\r")
        at(.sent, "\r\n+CIND: (\"call\",(0,1)),(\"callsetup\",(0-3)),(\"service\",(0-1))\r\n\r\nOK\r\n")
        at(.received, "AT+CMER=3,0,0,1\r")
        at(.sent, "\r\nOK\r\n")
        at(.sent, "\r\n+BCS: 2\r\n")
        at(.received, "AT+BCS=2\r")
        at(.sent, "\r\nOK\r\n")
        s.eSCOConnected(handle: 0x0006)
        at(.received, "AT+VGS=10\r")
        at(.sent, "\r\nOK\r\n")
        s.event(0x05, [0x00] + le16(0x0006) + [0x13])  // the eSCO link's Disconnection Complete
    }

    /// An AVDTP signalling message on the channel `headphoneA2DPSetup` opens.
    private static func headphoneAVDTP(_ s: inout LESession, _ h: UInt16, _ direction: Direction, _ bytes: [UInt8]) {
        s.l2cap(handle: h, direction, cid: direction == .sent ? 0x0072 : 0x0042, bytes)
    }

    /// A2DP: the AVDTP signalling channel, then AVDTP 1.3 §8.6–8.13 messages (transaction label
    /// in the high nibble, message type in the low 2 bits: 0 command, 2 accept), SEID 1 << 2.
    private static func headphoneA2DPSetup(_ s: inout LESession, _ h: UInt16, _ id: inout UInt8) {
        headphoneOpen(&s, h, &id, 0x0019, ours: 0x0042, theirs: 0x0072)
        func avdtp(_ direction: Direction, _ bytes: [UInt8]) { headphoneAVDTP(&s, h, direction, bytes) }
        avdtp(.sent, [0x10, 0x01])  // Discover
        avdtp(.received, [0x12, 0x01, 0x04, 0x08])  // SEID 1, not in use, audio sink
        avdtp(.sent, [0x20, 0x02, 0x04])  // Get Capabilities SEID 1
        // Media Transport; Media Codec SBC: every rate and mode, every block length, 4/8 subbands,
        // both allocations, bitpool 2–53 (A2DP 1.3 §4.3.2); Delay Reporting.
        avdtp(.received, [0x22, 0x02, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0xff, 0xff, 0x02, 0x35, 0x08, 0x00])
        // Set Configuration ACP 1, INT 1: SBC 48 kHz joint stereo, 16 blocks, 8 subbands, loudness.
        avdtp(.sent, [0x30, 0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x11, 0x15, 0x02, 0x35])
        avdtp(.received, [0x32, 0x03])
        avdtp(.sent, [0x40, 0x06, 0x04])  // Open
        avdtp(.received, [0x42, 0x06])
        headphoneOpen(&s, h, &id, 0x0019, ours: 0x0043, theirs: 0x0073)  // the media transport channel (§5.4.2)
        avdtp(.sent, [0x50, 0x07, 0x04])  // Start
        avdtp(.received, [0x52, 0x07])
    }

    /// AVRCP: the headset opens AVCTP (PSM 0x0017). AVCTP header: label << 4, C/R (bit 1), PID
    /// 0x110E (AVCTP 1.4 §6.1.1); AV/C: ctype, panel subunit 0x48, opcode (AVRCP 1.6.2 §6.7).
    private static func headphoneAVRCP(_ s: inout LESession, _ h: UInt16, _ id: inout UInt8) {
        headphoneOpen(&s, h, &id, 0x0017, ours: 0x0044, theirs: 0x0074, byThem: true)
        func avrcp(_ direction: Direction, label: UInt8, command: Bool, _ avc: [UInt8]) {
            let header = label << 4 | (command ? 0x00 : 0x02)
            s.l2cap(handle: h, direction, cid: direction == .sent ? 0x0074 : 0x0044, [header, 0x11, 0x0e] + avc)
        }
        let bluetoothSIG: [UInt8] = [0x00, 0x19, 0x58]
        // GetCapabilities (0x10) EventsSupported (0x03); the phone lists 4 events.
        avrcp(.received, label: 1, command: true, [0x01, 0x48, 0x00] + bluetoothSIG + [0x10, 0x00, 0x00, 0x01, 0x03])
        avrcp(
            .sent, label: 1, command: false,
            [0x0c, 0x48, 0x00] + bluetoothSIG + [0x10, 0x00, 0x00, 0x06, 0x03, 0x04, 0x01, 0x02, 0x05, 0x0d])
        // RegisterNotification (0x31) PlaybackStatusChanged (0x01): interim stopped, later changed playing.
        avrcp(
            .received, label: 2, command: true,
            [0x03, 0x48, 0x00] + bluetoothSIG + [0x31, 0x00, 0x00, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00])
        avrcp(
            .sent, label: 2, command: false, [0x0f, 0x48, 0x00] + bluetoothSIG + [0x31, 0x00, 0x00, 0x02, 0x01, 0x00])
        // Pass Through Play (0x44) pressed and released (AV/C Panel Subunit §9.4), accepted.
        avrcp(.received, label: 3, command: true, [0x00, 0x48, 0x7c, 0x44, 0x00])
        avrcp(.sent, label: 3, command: false, [0x09, 0x48, 0x7c, 0x44, 0x00])
        avrcp(.received, label: 4, command: true, [0x00, 0x48, 0x7c, 0xc4, 0x00])
        avrcp(.sent, label: 4, command: false, [0x09, 0x48, 0x7c, 0xc4, 0x00])
        avrcp(
            .sent, label: 2, command: false, [0x0d, 0x48, 0x00] + bluetoothSIG + [0x31, 0x00, 0x00, 0x02, 0x01, 0x01])
        // SetAbsoluteVolume (0x50) to 0x40, accepted.
        avrcp(.sent, label: 5, command: true, [0x00, 0x48, 0x00] + bluetoothSIG + [0x50, 0x00, 0x00, 0x01, 0x40])
        avrcp(.received, label: 5, command: false, [0x09, 0x48, 0x00] + bluetoothSIG + [0x50, 0x00, 0x00, 0x01, 0x40])
        // GetElementAttributes (0x20) of the playing track: Title (1), UTF-8 (0x006A).
        avrcp(
            .received, label: 6, command: true,
            [0x01, 0x48, 0x00] + bluetoothSIG + [0x20, 0x00, 0x00, 0x0d] + [UInt8](repeating: 0, count: 8)
                + [0x01, 0x00, 0x00, 0x00, 0x01])
        let title = Array("Say \"Hi\"\u{7}".utf8)
        avrcp(
            .sent, label: 6, command: false,
            [0x0c, 0x48, 0x00] + bluetoothSIG + [0x20, 0x00] + be16(title.count + 9) + [0x01, 0x00, 0x00, 0x00, 0x01]
                + [0x00, 0x6a] + be16(title.count) + title)
    }

    /// SBC media: RTP (RFC 3550 §5.1: V=2, payload type 96, sequence, timestamp, SSRC), then the
    /// SBC media payload header (A2DP 1.3 §4.3.4: one frame) and a frame. Sequence 103 and 104 lost.
    /// Then the stream's Suspend and Close.
    private static func headphoneA2DPMedia(_ s: inout LESession, _ h: UInt16) {
        var sequence = 100
        for i in 0..<24 {
            if i == 3 { sequence += 2 }
            let rtp: [UInt8] = [0x80, 0x60] + be16(sequence) + be16(0) + be16(i * 128) + [0x00, 0x00, 0x00, 0x01]
            let record = s.l2cap(
                handle: h, .sent, cid: 0x0073, rtp + [0x01, 0x9c, 0xbd, 0x35] + [UInt8](repeating: 0x5a, count: 60))
            if i == 3 { s.expect("avdtp.media.gap", at: record) }
            sequence += 1
        }
        headphoneAVDTP(&s, h, .sent, [0x60, 0x09, 0x04])  // Suspend
        headphoneAVDTP(&s, h, .received, [0x62, 0x09])
        headphoneAVDTP(&s, h, .sent, [0x70, 0x08, 0x04])  // Close
        headphoneAVDTP(&s, h, .received, [0x72, 0x08])
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
}
