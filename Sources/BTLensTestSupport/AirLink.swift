import BTLensCapture
import BTLensCrypto

/// One connection's data channel PDUs as both sides send them (Core v5.4 Vol 6 Part B §4.5.9):
/// SN and NESN kept as the link layer keeps them, every PDU acknowledged by the peer's next, and
/// from `encrypt` on each non-empty PDU encrypted with its side's packet counter (Vol 6 Part E).
struct AirLink {
    let aa: UInt32
    private var sn: [UInt8] = [0, 0]
    private var nesn: [UInt8] = [0, 0]
    private var cipher: LLCipher?
    private var counters: [UInt64] = [0, 0]
    private var encrypts = [false, false]

    init(_ aa: UInt32) { self.aa = aa }

    static let central = 0
    static let peripheral = 1

    /// One connection event: the central's PDU, then the peripheral's (each an Empty PDU when nil).
    mutating func event(_ s: inout SnifferCapture.Script, _ central: Sent?, _ peripheral: Sent?) {
        send(&s, Self.central, central ?? .empty)
        send(&s, Self.peripheral, peripheral ?? .empty)
    }

    /// A PDU `side` sends; when `heard` is false the sniffer misses it, and the link goes on.
    mutating func send(_ s: inout SnifferCapture.Script, _ side: Int, _ pdu: Sent, heard: Bool = true) {
        let first = pdu.llid | nesn[side] << 2 | sn[side] << 3
        var payload = pdu.payload
        if encrypts[side], !payload.isEmpty, let cipher,
            let sealed = cipher.encrypt(
                header: first, plaintext: payload, counter: counters[side], fromCentral: side == 0)
        {
            payload = sealed
            counters[side] += 1
        }
        if heard { s.data(aa, side == 0 ? .central : .peripheral, first: first, payload) }
        nesn[1 - side] = sn[side] ^ 1
        sn[side] ^= 1
    }

    /// Encryption starts with `ltk` and the session parameters of LL_ENC_REQ and LL_ENC_RSP; each
    /// side encrypts from its next PDU (after LL_START_ENC_REQ, Vol 6 Part B §5.1.3.1).
    mutating func encrypt(ltk: Key128, request: [UInt8], response: [UInt8]) {
        cipher = LLCipher(
            ltk: ltk, skdm: request[11..<19], ivm: request[19..<23], skds: response[1..<9], ivs: response[9..<13])
        counters = [0, 0]
        encrypts = [true, true]
    }

    /// `side` sends in plaintext from its next PDU (the central's LL_PAUSE_ENC_RSP, §5.1.3.2).
    mutating func plaintext(_ side: Int) { encrypts[side] = false }

    /// What a side sends: an LLID and a payload.
    struct Sent {
        var llid: UInt8
        var payload: [UInt8]

        static let empty = Sent(llid: 1, payload: [])
        static func control(_ bytes: [UInt8]) -> Sent { Sent(llid: 3, payload: bytes) }
        /// An L2CAP PDU whole in one PDU, on `cid`.
        static func l2cap(_ cid: UInt16, _ bytes: [UInt8]) -> Sent {
            let n = bytes.count
            return Sent(llid: 2, payload: [UInt8(n & 0xff), UInt8(n >> 8), UInt8(cid & 0xff), UInt8(cid >> 8)] + bytes)
        }
        static func att(_ bytes: [UInt8]) -> Sent { l2cap(0x0004, bytes) }
        static func smp(_ bytes: [UInt8]) -> Sent { l2cap(0x0006, bytes) }
    }
}

extension SnifferCapture.Script {
    /// A data channel PDU from its header's first octet (LLID, NESN, SN).
    mutating func data(_ aa: UInt32, _ sender: AirPacket.Sender, first: UInt8, _ payload: [UInt8]) {
        data(aa, sender, llid: first & 3, sn: first >> 3 & 1, nesn: first >> 2 & 1, payload)
    }
}
