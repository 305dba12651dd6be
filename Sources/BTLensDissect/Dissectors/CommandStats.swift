import BTLensCore
import Histogram

/// Per-command counts and response latency for `stats`, per dissector. Latencies go into an
/// HdrHistogram (2 significant digits, a few kB per command), so memory does not grow with the capture.
/// Kept by `stats` from frame events, or by the analyzer itself in `.counts` detail (`Tally`).
public struct CommandStats: Sendable, Equatable {
    /// Commands tracked; beyond this, messages are counted only in the totals.
    public static let limit = 1024

    public struct Key: Hashable, Comparable, Sendable {
        public var dissector: String
        public var command: UInt16
        /// Not the dissector's name: hashing a string per frame costs more than comparing it.
        public func hash(into h: inout Hasher) { h.combine(command) }
        public static func < (a: Key, b: Key) -> Bool { (a.dissector, a.command) < (b.dissector, b.command) }
    }

    public struct Entry: Sendable, Equatable {
        public var name: String?
        public var sent = 0
        public var received = 0
        public var answered = 0
        public var unanswered = 0
        /// Exact extremes in µs; the histogram gives the percentiles (to 1 %).
        public var fastest = Int64.max
        public var slowest = Int64.min
        public var latency: Histogram<UInt32> = {
            var h = Histogram<UInt32>(highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: .two)
            h.autoResize = true
            return h
        }()
    }

    /// Entries in the order first counted, and where each key's is.
    private var keys: [Key] = []
    private var rows: [Entry] = []
    private var rowOf: [Key: Int] = [:]
    /// Per dissector (its slot, `slot(for:)`), the rows of its one-byte commands (−1: not counted
    /// yet): most frames are counted by two indexes, without hashing or comparing a name.
    private var slots: [(dissector: String, rows: [Int32])] = []
    private var lastSlot = 0

    public init() {}

    public var entries: [Key: Entry] { Dictionary(uniqueKeysWithValues: zip(keys, rows)) }

    public static func == (a: CommandStats, b: CommandStats) -> Bool { a.entries == b.entries }

    public mutating func message(_ a: FrameInfo, direction: Direction?) {
        guard let dissector = a.dissector else { return }
        message(
            slot: slot(for: dissector), command: a.frame.command, hasCommand: a.hasCommand, name: a.messageName,
            direction: direction, pairing: a.pairing)
    }

    /// Where `dissector`'s commands are counted: an analyzer keeps it per stream.
    public mutating func slot(for dissector: String) -> Int {
        if lastSlot < slots.count, slots[lastSlot].dissector == dissector { return lastSlot }
        if let i = slots.firstIndex(where: { $0.dissector == dissector }) {
            lastSlot = i
        } else {
            slots.append((dissector, Array(repeating: -1, count: 256)))
            lastSlot = slots.count - 1
        }
        return lastSlot
    }

    /// A frame its dissector named: counted under its command, and its latency under its request's.
    public mutating func message(
        slot: Int, command: UInt16, hasCommand: Bool, name: String?, direction: Direction?, pairing: PairedResponse?
    ) {
        guard hasCommand else { return }
        update(slot, command) { e in
            if e.name == nil { e.name = name }
            if direction == .received { e.received += 1 } else { e.sent += 1 }
        }
        if let p = pairing {
            update(slot, p.requestCommand) { e in
                e.answered += 1
                e.fastest = min(e.fastest, p.latencyMicroseconds)
                e.slowest = max(e.slowest, p.latencyMicroseconds)
                _ = e.latency.record(UInt64(max(0, p.latencyMicroseconds)))
            }
        }
    }

    public mutating func unanswered(_ d: Diagnostic) {
        guard case .string(let dissector)? = d.field("dissector"), case .int(let command)? = d.field("command") else {
            return
        }
        update(slot(for: dissector), UInt16(truncatingIfNeeded: command)) { $0.unanswered += 1 }
    }

    /// Adds what another count saw (the analyzer's, in `.counts` detail).
    public mutating func add(_ other: CommandStats) {
        for (key, o) in other.entries.sorted(by: { $0.key < $1.key }) {
            update(slot(for: key.dissector), key.command) { e in
                if e.name == nil { e.name = o.name }
                e.sent += o.sent
                e.received += o.received
                e.answered += o.answered
                e.unanswered += o.unanswered
                e.fastest = min(e.fastest, o.fastest)
                e.slowest = max(e.slowest, o.slowest)
                e.latency.add(o.latency)
            }
        }
    }

    private mutating func update(_ slot: Int, _ command: UInt16, _ change: (inout Entry) -> Void) {
        guard command < 256 else {
            if let i = row(Key(dissector: slots[slot].dissector, command: command)) { change(&rows[i]) }
            return
        }
        let cached = slots[slot].rows[Int(command)]
        if cached >= 0 { return change(&rows[Int(cached)]) }
        guard let i = row(Key(dissector: slots[slot].dissector, command: command)) else { return }
        slots[slot].rows[Int(command)] = Int32(i)
        change(&rows[i])
    }

    /// The row of `key`, added if there is room.
    private mutating func row(_ key: Key) -> Int? {
        if let i = rowOf[key] { return i }
        guard keys.count < Self.limit else { return nil }
        keys.append(key)
        rows.append(Entry())
        rowOf[key] = keys.count - 1
        return keys.count - 1
    }

    public var sorted: [(key: Key, entry: Entry)] { entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }

    /// min, median, p95, max in milliseconds.
    public static func latency(_ e: Entry) -> [(String, Double)]? {
        guard e.answered > 0 else { return nil }
        return [("min", 0), ("median", 50), ("p95", 95), ("max", 100)].map { ($0.0, percentile(e, $0.1)) }
    }

    /// The latency at percentile `p` in milliseconds (0 and 100: the exact extremes). Percentiles
    /// are clamped to the extremes: the histogram rounds within its 1 % buckets.
    public static func percentile(_ e: Entry, _ p: Double) -> Double {
        let us: Int64
        switch p {
        case ...0: us = e.fastest
        case 100...: us = e.slowest
        default:
            us = Swift.min(Swift.max(Int64(clamping: e.latency.valueAtPercentile(p)), e.fastest), e.slowest)
        }
        return Double(us) / 1000
    }
}
