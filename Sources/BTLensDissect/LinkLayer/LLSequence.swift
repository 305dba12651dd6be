import BTLensCapture

/// What a connection's sequence numbers say (Core v5.4 Vol 6 Part B §4.5.9): a retransmission, or a
/// PDU the sniffer did not hear; and, when the sniffer gives it (272), the connection event counter
/// (§4.5.1), which counts every connection event, each begun by a central PDU.
struct LLSequence {
    /// Each side's last SN and NESN heard (index 0 the central's, 1 the peripheral's), and whether the
    /// peer's NESN has acknowledged that SN since.
    private var lastSN: [UInt8?] = [nil, nil]
    private var lastNESN: [UInt8?] = [nil, nil]
    private var acknowledged = [false, false]
    /// A digest of each side's last PDU (LLID, length, payload): a retransmission repeats it exactly.
    private var lastContent: [UInt64?] = [nil, nil]
    private(set) var lastCounter: UInt16?
    /// The record of the last PDU heard on the connection.
    private(set) var lastRecord: Int?

    /// What the sequence numbers and counter show was not heard before a PDU.
    enum Missed: Equatable {
        /// A side's new SN with no acknowledgement of its last heard: the peer's PDU that gave it.
        case unacknowledged(sn: UInt8)
        /// A NESN that acknowledges a peer's PDU never heard.
        case unheard(nesn: UInt8)
        /// Connection events skipped by the event counter.
        case events(Int, expected: UInt16, found: UInt16)
        /// The event counter went back (or jumped by half its range or more).
        case counterBack(expected: UInt16, found: UInt16)
        /// A side's unacknowledged SN again with other bytes: a new PDU, its earlier ones not heard.
        case differs(sn: UInt8)
    }

    /// FNV-1a of a PDU's first header octet's LLID, its length and payload: what a retransmission repeats.
    static func digest(_ header: LLDataHeader) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        h = (h ^ UInt64(header.llid)) &* 0x0000_0100_0000_01b3
        h = (h ^ UInt64(truncatingIfNeeded: header.length)) &* 0x0000_0100_0000_01b3
        for b in header.payload { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// Takes one PDU from `side` (known from the sniffer, or `guessed` in turns, when only
    /// retransmissions are told); returns whether it repeats an SN never acknowledged, and what
    /// was missed before it, if anything.
    mutating func next(
        _ sender: AirPacket.Sender, guessed: Bool, sn: UInt8, nesn: UInt8, content: UInt64, counter: UInt16?,
        record: Int
    ) -> (resent: Bool, missed: Missed?) {
        let side = sender == .central ? 0 : 1
        let peer = 1 - side
        let counted = guessed ? nil : counterGap(counter)
        var missed = counted
        if !guessed, missed == nil {
            // A new SN needs the peer's acknowledgement of the last one; a flipped NESN, a new peer PDU.
            if let s = lastSN[side], s != sn, !acknowledged[side] {
                missed = .unacknowledged(sn: sn)
            } else if let n = lastNESN[side], n != nesn, lastSN[peer] != n {
                missed = .unheard(nesn: nesn)
            }
        }
        lastRecord = record
        lastNESN[side] = nesn
        if let p = lastSN[peer], nesn != p { acknowledged[peer] = true }
        // Past skipped events, a repeated SN may be a new PDU: it is decoded. A retransmission
        // repeats its PDU byte for byte (§4.5.9); other bytes are a new PDU after unheard ones.
        if lastSN[side] == sn, !acknowledged[side], counted == nil {
            if lastContent[side] == content { return (true, missed) }
            if !guessed, lastContent[side] != nil, missed == nil { missed = .differs(sn: sn) }
        }
        lastSN[side] = sn
        lastContent[side] = content
        acknowledged[side] = false
        return (false, missed)
    }

    /// Events skipped since the last counter heard: 0 or 1 apart is the same or the next event.
    private mutating func counterGap(_ counter: UInt16?) -> Missed? {
        guard let counter else { return nil }
        defer { lastCounter = counter }
        guard let last = lastCounter else { return nil }
        let step = counter &- last
        if step <= 1 { return nil }
        if step >= 0x8000 { return .counterBack(expected: last, found: counter) }
        return .events(Int(step) - 1, expected: last &+ 1, found: counter)
    }
}
