import BTLensCore

/// Joins fragmented AVDTP signalling messages (AVDTP 1.3 §8.4.2–8.4.4) on one signalling channel
/// and direction: a Start packet (header, number of signal packets, signal identifier), Continue
/// packets, an End packet; every one repeats the Start's transaction label and message type.
/// Holds at most `limit` bytes (docs/limits.md).
public struct AVDTPAssembler: Sendable {
    /// A message joined from more bytes than this is dropped: 64 KiB, an L2CAP SDU's largest.
    public static let limit = 65_536

    public struct Output: Sendable {
        /// A whole message, with a single-packet header, for `AVDTPSignal`.
        public var message: ArraySlice<UInt8>?
        /// Each with the bytes it leaves undecoded (`undecodedBytes`): this packet's, earlier ones'.
        public var diagnostics: [Diagnostic] = []
        /// Bytes of this packet dropped without a diagnostic of their own: the rest of a message
        /// already dropped at `limit`.
        public var skipped = 0
    }

    struct Pending {
        /// The message so far: a single-packet header, the signal identifier, the parameters.
        var bytes: [UInt8]
        /// Transaction label and message type (the header with packet type 0).
        var label: UInt8
        var signal: UInt8
        var announced: Int
        var packets: Int
        /// Bytes of the packets so far, headers included: what dropping them leaves undecoded.
        var received: Int
    }

    private var pending: Pending?
    /// The label of a message dropped at `limit`: its Continue and End packets are skipped.
    private var skipping: UInt8?

    public init() {}

    /// Bytes held for a message in progress: at disconnection, its End never came.
    public var heldBytes: Int { pending?.bytes.count ?? 0 }

    /// The bytes of a message its channel closed in the middle of, given up.
    public mutating func takeHeld() -> [UInt8] {
        defer { pending = nil }
        return pending?.bytes ?? []
    }

    /// One L2CAP PDU's payload: a whole message, nothing yet (a Start or Continue packet held), or
    /// diagnostics for packets that cannot be joined.
    public mutating func push(_ packet: ArraySlice<UInt8>) -> Output {
        var out = Output()
        guard let header = packet.first else {
            out.diagnostics.append(
                AVDTPMalformed("AVDTP signalling packet", ShortRead(offset: 0, needed: 1, available: 0), 0).diagnostic)
            return out
        }
        let label = header & 0xf3
        let body = packet.dropFirst()
        let type = header >> 2 & 0x03
        if type != 0b10 && type != 0b11 { skipping = nil }
        switch type {
        case 0b00:
            drop("a Single packet", &out)
            out.message = packet
        case 0b01:
            drop("another Start packet", &out)
            guard let count = body.first, let signal = body.dropFirst().first else {
                let short = ShortRead(offset: 1, needed: 2, available: body.count)
                out.diagnostics.append(AVDTPMalformed("AVDTP Start packet", short, packet.count).diagnostic)
                return out
            }
            pending = Pending(
                bytes: [label, signal] + body.dropFirst(2), label: label, signal: signal & 0x3f,
                announced: Int(count), packets: 1, received: packet.count)
            checkLimit(&out)
        default:
            if skipping == label {
                out.skipped = packet.count
                if type == 0b11 { skipping = nil }
                return out
            }
            let what = type == 0b11 ? "End" : "Continue"
            guard var p = pending, p.label == label else {
                drop(
                    "\(type == 0b11 ? "an" : "a") \(what) packet of transaction \(label >> 4), message type \(label & 0x03)",
                    &out)
                var d = Diagnostic(
                    AVDTPDiagnostics.unexpectedFragment,
                    "AVDTP \(what) packet of transaction \(label >> 4): a Start packet expected before it, found none; not decoded"
                )
                d.undecodedBytes = packet.count
                out.diagnostics.append(d)
                return out
            }
            pending = nil
            p.bytes += body
            p.packets += 1
            p.received += packet.count
            guard type == 0b11 else {
                pending = p
                checkLimit(&out)
                return out
            }
            if p.packets != p.announced {
                out.diagnostics.append(
                    Diagnostic(
                        AVDTPDiagnostics.unexpectedFragment,
                        "AVDTP \(AVDTPNames.signal(p.signal)) message: \(p.announced) packets announced, \(p.packets) found",
                        fields: [("expected", .int(p.announced)), ("actual", .int(p.packets))]))
            }
            out.message = p.bytes[...]
        }
        return out
    }

    /// Forgets a message whose End did not come before `found`.
    private mutating func drop(_ found: String, _ out: inout Output) {
        guard let p = pending else { return }
        pending = nil
        var d = Diagnostic(
            AVDTPDiagnostics.unexpectedFragment,
            "AVDTP \(AVDTPNames.signal(p.signal)) message of \(Self.packets(p.packets)): an End packet expected, found \(found); not decoded"
        )
        d.undecodedBytes = p.received
        out.diagnostics.append(d)
    }

    static func packets(_ n: Int) -> String { n == 1 ? "1 packet" : "\(n) packets" }

    private mutating func checkLimit(_ out: inout Output) {
        guard let p = pending, p.bytes.count > Self.limit else { return }
        pending = nil
        skipping = p.label
        var d = Diagnostic(
            AVDTPDiagnostics.fragmentLimit,
            "AVDTP \(AVDTPNames.signal(p.signal)) message of \(Self.packets(p.packets)): \(p.bytes.count) bytes, at most \(Self.limit) expected; not decoded"
        )
        d.undecodedBytes = p.received
        out.diagnostics.append(d)
    }
}
