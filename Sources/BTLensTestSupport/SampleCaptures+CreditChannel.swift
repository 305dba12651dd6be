import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// The A5 exchange a headphone's app has with it, once over GATT (0xFFF3 commands, 0xFFF4
    /// events) and once again over an LE credit-based channel to PSM 0x0080, as a vendor moving
    /// bulk data would (Core Vol 3 Part A §4.22–4.24, §3.4.3): both should decode to the same frames.
    /// The channel's K-frames are cut at the receiver's MPS and into ACL fragments of 27 bytes;
    /// the headphone runs out of credits once and is granted more.
    public static func creditChannelA5() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0042
        s.connect(handle: h, address: peer)
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received, [0x09, 0x07] + chr(0x0012, 0x04, 0x0013, 0xfff3) + chr(0x0014, 0x10, 0x0015, 0xfff4))
        s.att(handle: h, .sent, [0x08, 0x15, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: h, .received, [0x01, 0x08, 0x15, 0x00, 0x0a])
        for (direction, command, sequence, payload) in creditChannelFrames {
            s.frame(
                handle: h, attHandle: direction == .sent ? 0x0013 : 0x0015, direction, command: command,
                sequence: sequence, payload: payload, values: [20, 20, 20, 20, 20, 20])
        }
        // LE Credit Based Connection Request: PSM 0x0080, our CID 0x0040, MTU 512, MPS 100, 2 credits;
        // the response: its CID 0x0041, MTU 256, MPS 40, 4 credits, success.
        s.l2cap(
            handle: h, .sent, cid: 0x0005,
            [0x14, 0x07, 0x0a, 0x00, 0x80, 0x00, 0x40, 0x00] + le16(512) + le16(100) + le16(2))
        s.l2cap(
            handle: h, .received, cid: 0x0005,
            [0x15, 0x07, 0x0a, 0x00, 0x41, 0x00] + le16(256) + le16(40) + le16(4) + le16(0))
        var headphoneCredits = 2
        for (direction, command, sequence, payload) in creditChannelFrames {
            let sdu = Frame.encode(command: command, sequence: sequence, payload: payload)
            if direction == .received, headphoneCredits == 0 {
                // Flow Control Credit Indication from us: 2 more on our CID 0x0040.
                let grant = s.l2cap(handle: h, .sent, cid: 0x0005, [0x16, 0x08, 0x04, 0x00, 0x40, 0x00, 0x02, 0x00])
                s.expect("l2cap.credits.stalled", at: grant)
                headphoneCredits = 2
            }
            let mps = direction == .sent ? 40 : 100
            var rest = le16(sdu.count) + sdu
            var last = 0
            while !rest.isEmpty {
                last = s.l2cap(handle: h, direction, cid: direction == .sent ? 0x0041 : 0x0040, Array(rest.prefix(mps)))
                rest = Array(rest.dropFirst(mps))
                if direction == .received { headphoneCredits -= 1 }
            }
            // Frames on the channel have no ATT handle: 0 stands for none.
            s.expectFrame(last, direction, 0, command: command, sequence: sequence, payload: payload)
        }
        s.disconnect(handle: h)
        return s
    }

    /// SetEQPreset and its response, a battery event, and a long WriteSettings and its response.
    static let creditChannelFrames: [(Direction, UInt8, UInt8, [UInt8])] = [
        (.sent, 0x20, 1, [0x01]),
        (.received, 0xa0, 1, [0x00]),
        (.received, 0x05, 2, [0x02, 0x5a, 0x64]),
        (.sent, 0x21, 2, Array(0..<60)),
        (.received, 0xa1, 3, [0x00, 0x30]),
    ]
}
