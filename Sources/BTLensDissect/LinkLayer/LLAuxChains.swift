import BTLensCore

/// The advertising chains a sniffer is hearing (Core v5.4 Vol 6 Part B §2.3.4, §4.4.2.7): each
/// announced by an AuxPtr, awaiting its next part on the channel and at the time it gives. A
/// chain's AdvData is joined as its parts come, and freed when it ends or its next part is overdue.
struct LLAuxChains {
    /// Chains awaited at once; AdvData joined per chain (the most a host can give a controller to
    /// advertise, Vol 4 Part E §7.8.57); parts per chain.
    static let pendingLimit = 16
    static let byteLimit = 1650
    static let partLimit = 64

    struct Chain {
        /// The record of the chain's first part, and of its last part heard.
        var first: Int
        var last: Int
        var adi: UInt16?
        var data: [UInt8]
        var parts = 1
        /// Past `partLimit` or `byteLimit`: followed, no longer joined.
        var full = false
        /// Where and when the next part is due.
        var channel: UInt8
        var earliest: Timestamp
        var latest: Timestamp
    }

    private(set) var pending: [Chain] = []
    /// The last AUX_SCAN_REQ heard: its channel, time, and whether on LE Coded.
    var scanRequest: (channel: UInt8?, time: Timestamp, coded: Bool)?

    /// Whether a type 7 PDU heard on `channel` at `time` is the AUX_SCAN_RSP to the last AUX_SCAN_REQ,
    /// sent T_IFS (150 µs, §4.1.1) after its end on its channel: within the request's length and the
    /// slack of a sniffer's stamps (`await`'s). The request is answered once.
    mutating func answersScanRequest(channel: UInt8?, at time: Timestamp) -> Bool {
        guard let request = scanRequest, let channel, request.channel == channel else { return false }
        scanRequest = nil
        let since = time.microseconds.subtractingReportingOverflow(request.time.microseconds)
        return !since.overflow && since.partialValue >= 0 && since.partialValue <= (request.coded ? 17_500 : 3_000)
    }

    /// The awaited chain a PDU heard on `channel` at `time` with `adi` continues (ADIs must agree when
    /// both are present), taken out of those awaited.
    mutating func take(channel: UInt8?, at time: Timestamp, adi: UInt16?) -> Chain? {
        guard let channel,
            let i = pending.firstIndex(where: {
                $0.channel == channel && $0.earliest <= time && time <= $0.latest
                    && ($0.adi == nil || adi == nil || $0.adi == adi)
            })
        else { return nil }
        return pending.remove(at: i)
    }

    /// Awaits `chain`'s next part as `aux`, sent after the part heard at `time`; false when
    /// `pendingLimit` chains are already awaited.
    mutating func await(_ chain: Chain, _ aux: LLExtendedPDU.AuxPointer, after time: Timestamp) -> Bool {
        guard pending.count < Self.pendingLimit else { return false }
        // A sniffer may stamp a packet's start or its end, up to a packet's length apart: 2.12 ms
        // on LE 1M, 17.04 ms on LE Coded (§2.1, §4.1.3), and a host's clock may jitter too.
        let slack: Int64 = aux.phy == 2 ? 17_500 : 2_500
        var c = chain
        let due = Self.plus(time.microseconds, aux.offsetMicroseconds)
        c.channel = aux.channel
        c.earliest = Timestamp(microseconds: Self.plus(due, -slack))
        c.latest = Timestamp(microseconds: Self.plus(due, aux.unitMicroseconds + slack))
        pending.append(c)
        return true
    }

    /// `a + b`, held at the ends of the range (a capture's times are its own to lie about).
    private static func plus(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// The chains whose next part is overdue at `time`, taken out of those awaited.
    mutating func overdue(at time: Timestamp) -> [Chain] {
        guard pending.contains(where: { $0.latest < time }) else { return [] }
        let late = pending.filter { $0.latest < time }
        pending.removeAll { $0.latest < time }
        return late
    }
}
