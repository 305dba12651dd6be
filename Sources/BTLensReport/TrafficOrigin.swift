import BTLensCore
import BTLensDissect

/// Where a timeline's seconds count from: the traffic's first event, not a note's. An iPhone's
/// PacketLogger file begins with notes (product, firmware) days older than its traffic; they are
/// held until the traffic's first event, then shown before it with their own times. At most
/// `limit` are held: past that, or in a capture of notes alone, the first note is the origin.
public final class TrafficOrigin {
    public static let limit = 256

    private var held: [Event] = []
    private var known = false

    public init() {}

    /// Hands `e` on to `out`, or holds it; `begin` is told the origin once, before anything is handed on.
    public func pass(_ e: Event, begin: (Timestamp) -> Void, to out: (Event) -> Void) {
        if known { return out(e) }
        if e.isNote, held.count < Self.limit { return held.append(e) }
        release(at: e.isNote ? held.first?.timestamp ?? e.timestamp : e.timestamp, begin, out)
        out(e)
    }

    /// The end of the capture: notes still held are shown, counted from the first.
    public func finish(begin: (Timestamp) -> Void, to out: (Event) -> Void) {
        guard !known, let first = held.first else { return }
        release(at: first.timestamp, begin, out)
    }

    private func release(at origin: Timestamp, _ begin: (Timestamp) -> Void, _ out: (Event) -> Void) {
        known = true
        begin(origin)
        for e in held { out(e) }
        held = []
    }
}
