import BTLensDissect

/// A log's offset over the whole capture, for a log whose lines the capture's first minute
/// (`AppLogClock`) places too few of: the log's byte runs of 3 or more, read through once, joined
/// with every value the capture carried, read through once more.
///
/// Bounded: at most `keys` distinct runs, kept by a hash of their bytes with at most `repeats + 1`
/// times a side. Past `keys`, runs first seen are kept one in two, then one in four, …: a sample
/// spread over the whole log.
public struct AppLogSurvey {
    public static let keys = 50_000

    private struct Entry {
        var log: [Int64] = []
        var logCount = 0
        var capture: [Int64] = []
        var captureCount = 0
        /// The run's place among the runs read: which are kept when the sample thins.
        var order: Int
    }

    private var entries: [Int: Entry] = [:]
    private var runs = 0
    private var stride = 1

    public init() {}

    /// No run of the log can place it: the capture need not be read.
    public var isEmpty: Bool { entries.isEmpty }
    /// The distinct runs kept (at most `keys`).
    public var keptRuns: Int { entries.count }

    /// A line of the log, on its own clock.
    public mutating func add(_ line: AppLogReadLine) {
        guard let at = line.rawTime else { return }
        for run in line.runs where run.bytes.count >= 3 && !run.isWeak {
            let order = runs
            runs += 1
            let h = AppLogAirMatcher.hash(run.bytes)
            if entries[h] == nil {
                guard order % stride == 0 else { continue }
                if entries.count >= Self.keys {
                    stride *= 2
                    entries = entries.filter { $0.value.order % stride == 0 }
                    guard order % stride == 0 else { continue }
                }
                entries[h] = Entry(order: order)
            }
            entries[h]?.logCount += 1
            if entries[h]?.log.count ?? 0 <= AppLogClock.repeats { entries[h]?.log.append(at) }
        }
    }

    /// An event of the capture: its value, if a run of the log is it.
    public mutating func add(_ e: Event) {
        guard let v = AppLogValue(e), v.bytes.count >= 3 else { return }
        let h = AppLogAirMatcher.hash(v.bytes)
        guard entries[h] != nil else { return }
        entries[h]?.captureCount += 1
        if entries[h]?.capture.count ?? 0 <= AppLogClock.repeats { entries[h]?.capture.append(v.time) }
    }

    /// The offset most runs agree on, and how many (`AppLogClock.densest`, ties going to the one
    /// nearest `priors`): from the runs seen at most `repeats` times on each side.
    public func offset(priors: [Int64] = [0]) -> (offset: Int64, matched: Int) {
        var offsets: [Int64] = []
        for e in entries.values
        where (1...AppLogClock.repeats).contains(e.logCount) && (1...AppLogClock.repeats).contains(e.captureCount) {
            for c in e.capture {
                for l in e.log where offsets.count < AppLogClock.candidates { offsets.append(c &- l) }
            }
        }
        return AppLogClock.densest(offsets, priors: priors)
    }
}
