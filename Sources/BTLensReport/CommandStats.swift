import BTLensCore
import BTLensDissect
import Histogram

/// Per-command counts and response latency for `stats`, per dissector. Latencies go into an
/// HdrHistogram (2 significant digits, a few kB per command), so memory does not grow with the capture.
struct CommandStats {
    /// Commands tracked; beyond this, messages are counted only in the totals.
    static let limit = 1024

    struct Key: Hashable, Comparable {
        var dissector: String
        var command: UInt16
        /// Not the dissector's name: hashing a string per frame costs more than comparing it.
        func hash(into h: inout Hasher) { h.combine(command) }
        static func < (a: Key, b: Key) -> Bool { (a.dissector, a.command) < (b.dissector, b.command) }
    }

    struct Entry {
        var name: String?
        var sent = 0
        var received = 0
        var answered = 0
        var unanswered = 0
        /// Exact extremes in µs; the histogram gives the percentiles (to 1 %).
        var fastest = Int64.max
        var slowest = Int64.min
        var latency: Histogram<UInt32> = {
            var h = Histogram<UInt32>(highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: .two)
            h.autoResize = true
            return h
        }()
    }

    private(set) var entries: [Key: Entry] = [:]

    mutating func message(_ a: FrameInfo, direction: Direction?) {
        guard let dissector = a.dissector, a.hasCommand else { return }
        update(Key(dissector: dissector, command: a.frame.command)) { e in
            if e.name == nil { e.name = a.decoded?.name }
            if direction == .received { e.received += 1 } else { e.sent += 1 }
        }
        if let p = a.pairing {
            update(Key(dissector: dissector, command: p.requestCommand)) { e in
                e.answered += 1
                e.fastest = min(e.fastest, p.latencyMicroseconds)
                e.slowest = max(e.slowest, p.latencyMicroseconds)
                _ = e.latency.record(UInt64(max(0, p.latencyMicroseconds)))
            }
        }
    }

    mutating func unanswered(_ d: Diagnostic) {
        guard case .string(let dissector)? = d.field("dissector"), case .int(let command)? = d.field("command") else {
            return
        }
        update(Key(dissector: dissector, command: UInt16(truncatingIfNeeded: command))) { $0.unanswered += 1 }
    }

    private mutating func update(_ key: Key, _ change: (inout Entry) -> Void) {
        if let i = entries.index(forKey: key) { return change(&entries.values[i]) }
        guard entries.count < Self.limit else { return }
        var e = Entry()
        change(&e)
        entries[key] = e
    }

    var sorted: [(key: Key, entry: Entry)] { entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }

    /// min, median, p95, max in milliseconds.
    static func latency(_ e: Entry) -> [(String, Double)]? {
        guard e.answered > 0 else { return nil }
        let h = e.latency
        // Percentiles are clamped to the exact extremes: the histogram rounds within its 1 % buckets.
        let clamp = { (v: UInt64) in Swift.min(Swift.max(Int64(clamping: v), e.fastest), e.slowest) }
        return [
            ("min", e.fastest), ("median", clamp(h.median)), ("p95", clamp(h.valueAtPercentile(95))),
            ("max", e.slowest),
        ]
        .map { ($0.0, Double($0.1) / 1000) }
    }
}
