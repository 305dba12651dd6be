import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensTestSupport

/// The `sniffer` target's seeds, in each link type and file form: the sample sniffer capture; a
/// connection with LL control procedures, ATT carrying A5 frames (one fragmented), and SMP; and
/// records whose sniffer headers are cut short or lie, with times that repeat and go back.
enum SnifferSeeds {
    static var all: [[UInt8]] {
        let script = SnifferCapture.records().map(SnifferTargets.tag(of:))
        let session = connection()
        var out: [[UInt8]] = []
        for form in SnifferTargets.forms.indices {
            out.append([UInt8(form)] + Parts.encode(script))
            out.append([UInt8(form)] + Parts.encode(session))
        }
        return out + hostile()
    }

    /// Advertising PDU parts: ADV_IND, then CONNECT_IND opening the first connection (Core v5.4
    /// Vol 6 Part B §2.3.3.1: InitA, AdvA, LLData).
    static var advertising: [(UInt8, [UInt8])] {
        let (initiator, advertiser) = (SnifferCapture.central.wire, SnifferCapture.peripheral.wire)
        let data =
            SnifferCapture.le32(SnifferCapture.firstAccessAddress)
            + [0x56, 0x34, 0x12, 2, 0, 0, 24, 0, 0, 0, 72, 0, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x07]
        let adv = advertiser + [2, 0x01, 0x06, 3, 0x03, 0x0f, 0x18]
        return [(0, [0x40, UInt8(adv.count)] + adv), (0, [0xc5, 34] + initiator + advertiser + data)]
    }

    /// Data PDUs taking turns, each acknowledging the last (§4.5.9): LLID 3 control, 2 start, 1 continuation.
    struct Turns {
        var parts: [(UInt8, [UInt8])] = []
        private var sn: [Bool: UInt8] = [true: 0, false: 0]

        mutating func add(central: Bool, llid: UInt8, _ payload: [UInt8]) {
            let mine = sn[central] ?? 0
            let theirs = (sn[!central] ?? 0) ^ (central ? 0 : 1)
            parts.append((central ? 5 : 1, [llid | theirs << 2 | mine << 3, UInt8(payload.count)] + payload))
            sn[central] = mine ^ 1
        }

        mutating func l2cap(central: Bool, cid: UInt8, _ payload: [UInt8]) {
            add(central: central, llid: 2, [UInt8(payload.count & 0xff), UInt8(payload.count >> 8), cid, 0] + payload)
        }
    }

    /// LL control procedures (§2.4.2), ATT with A5 frames on 0x0013/0x0015, a fragmented
    /// notification, SMP pairing (Vol 3 Part H §3.5), then a terminate.
    static func connection() -> [(UInt8, [UInt8])] {
        var t = Turns()
        t.add(central: true, llid: 3, [0x08] + Array(repeating: 0xff, count: 8))  // LL_FEATURE_REQ
        t.add(central: false, llid: 3, [0x09, 0x01, 0, 0, 0, 0, 0, 0, 0])  // LL_FEATURE_RSP
        t.add(central: true, llid: 3, [0x14, 0xfb, 0x00, 0x48, 0x08, 0xfb, 0x00, 0x48, 0x08])  // LL_LENGTH_REQ
        t.add(central: false, llid: 3, [0x15, 0xfb, 0x00, 0x48, 0x08, 0xfb, 0x00, 0x48, 0x08])  // LL_LENGTH_RSP
        t.add(central: true, llid: 3, [0x16, 0x02, 0x02])  // LL_PHY_REQ, 2M
        t.add(central: false, llid: 3, [0x18, 0x02, 0x02, 0x20, 0x00])  // LL_PHY_UPDATE_IND
        t.add(central: true, llid: 3, [0x00, 2, 0, 0, 24, 0, 0, 0, 72, 0, 0x30, 0])  // LL_CONNECTION_UPDATE_IND
        t.add(central: false, llid: 1, [])
        t.add(central: true, llid: 3, [0x01, 0xff, 0xff, 0x00, 0xff, 0x1f, 0x40, 0x00])  // LL_CHANNEL_MAP_IND
        t.add(central: false, llid: 1, [])
        t.l2cap(central: true, cid: 4, [0x02, 0xf7, 0x00])
        t.l2cap(central: false, cid: 4, [0x03, 0xf7, 0x00])
        let command = Frame.encode(command: 0x20, sequence: 1, payload: [0x02])
        t.l2cap(central: true, cid: 4, [0x52, 0x13, 0x00] + command)
        let answer = Frame.encode(command: 0xa0, sequence: 0x80, payload: [0x00] + Array(repeating: 0x5a, count: 40))
        let notification = [0x1b, 0x15, 0x00] + answer
        let l2cap = [UInt8(notification.count), 0, 4, 0] + notification
        t.add(central: false, llid: 2, Array(l2cap.prefix(27)))
        t.add(central: true, llid: 1, [])
        t.add(central: false, llid: 1, Array(l2cap.dropFirst(27)))
        t.l2cap(central: true, cid: 6, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])  // Pairing Request
        t.l2cap(central: false, cid: 6, [0x02, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])  // Pairing Response
        t.add(central: true, llid: 3, [0x02, 0x13])  // LL_TERMINATE_IND
        return advertising + t.parts
    }

    /// Whole records (tag 3) in the 256 and 272 forms: headers cut short, 272 headers of each
    /// version, and lengths that lie; times repeated (tag bits 6–7: 1) and going back (2).
    static func hostile() -> [[UInt8]] {
        let packet = SnifferCapture.le32(SnifferCapture.firstAccessAddress) + [0x01, 0x00, 0, 0, 0]
        let v3 = [0x00, 19, 0, 3, 1, 0, 0x06, 10, 0x0f, 4, 60, 0, 0, 0x10, 0, 0, 0] + packet
        let v1 = [0x00, 6, 19, 1, 1, 0, 0x06, 10, 0x03, 4, 60, 0, 0, 0, 0, 0, 0] + packet
        let v0 = [0xbe, 0xef, 0x06, 1, 0, 0, 0, 19, 0x03, 4, 60, 0, 0, 0, 0, 0, 0] + packet
        let lying = [0x00, 0xff, 0xff, 7, 1, 0, 0x06, 0xff, 0x03, 4, 60, 0, 0, 0, 0, 0, 0] + packet
        let nordic = advertising + [(3, v3), (0x43, v1), (0x83, v0), (3, lying), (3, Array(v3.prefix(9))), (3, [])]
        let pseudo: [UInt8] = [5, 0xc1, 0, 0, 0, 0, 0, 0, 0x83, 0x0d]
        let phdr = advertising + [(0x83, pseudo + packet), (0x43, pseudo + packet), (3, Array(pseudo.prefix(6)))]
        return [[2] + Parts.encode(nordic), [5] + Parts.encode(nordic), [1] + Parts.encode(phdr)]
    }
}
