import BTLensDissect

/// Puts a log's clock on the capture's: the offset most of its lines' bytes agree on, and each
/// line's time on the capture's clock. Pure: the lines and the capture's values are given.
public enum AppLogClock {
    /// The capture's values of 3 bytes or more, with the times they were carried.
    public typealias Values = [[UInt8]: [Int64]]

    /// At most this many candidate offsets are weighed.
    static let candidates = 100_000
    /// A value carried more often than this says little of the clock.
    static let repeats = 16

    /// How `source`'s clock meets the capture's: `given` (`--app-log-offset`), else from the
    /// lines read ahead whose bytes are `values`.
    public static func alignment(
        source: String, lines: [AppLogReadLine], values: Values, given: Int64?
    ) -> AppLogAlignment {
        if let given {
            return AppLogAlignment(source: source, offsetMicroseconds: given, matched: 0, method: .given)
        }
        if let first = lines.first, first.rawTime == nil {
            // A log that writes no time is placed line by line by its bytes: no offset.
            let shown = lines.filter { $0.runs.contains { values[$0.bytes] != nil } }.count
            return AppLogAlignment(
                source: source, offsetMicroseconds: 0, matched: shown, method: .content, untimed: true)
        }
        let (offset, matched) = self.offset(of: lines, values)
        return AppLogAlignment(
            source: source, offsetMicroseconds: offset, matched: matched, method: matched > 0 ? .content : .clock)
    }

    /// The offset from the lines whose bytes are `values`, and how many candidates agree.
    public static func offset(of lines: [AppLogReadLine], _ values: Values) -> (offset: Int64, matched: Int) {
        var offsets: [Int64] = []
        for line in lines where offsets.count < candidates {
            guard let at = line.rawTime else { continue }
            for run in line.runs where run.bytes.count >= 3 {
                guard let times = values[run.bytes], times.count <= repeats else { continue }
                for t in times { offsets.append(t &- at) }
            }
        }
        return densest(offsets, priors: priors(lines))
    }

    /// The offset most candidates agree on within a second, and how many: their median. Of
    /// seconds with as many, the one nearest a prior (the log's clock read as UTC, 0, or as the
    /// capture's local time, its zone): a log that repeats a session agrees as well with each.
    public static func densest(_ offsets: [Int64], priors: [Int64] = [0]) -> (Int64, Int) {
        let sorted = offsets.sorted()
        var best: (median: Int64, count: Int, distance: UInt64)?
        var start = 0
        for end in sorted.indices {
            while sorted[end] &- sorted[start] > 1_000_000 { start += 1 }
            let count = end - start + 1
            guard count >= best?.count ?? 0 else { continue }
            let median = sorted[start + count / 2]
            let distance = priors.map { (median &- $0).magnitude }.min() ?? 0
            if count > best?.count ?? 0 || distance < best?.distance ?? .max { best = (median, count, distance) }
        }
        return best.map { ($0.median, $0.count) } ?? (0, 0)
    }

    /// The offsets a log's own clock suggests: 0, and its zone where it writes one (a capture whose
    /// clock is the phone's local time).
    public static func priors(_ lines: [AppLogReadLine]) -> [Int64] {
        let zone = lines.lazy.compactMap { $0.line.time?.utcOffsetSeconds }.first { $0 != 0 }
        return [0] + (zone.map { [Int64($0) * 1_000_000] } ?? [])
    }

    /// A timed line's time on the capture's clock; nil for one that writes no time.
    public static func time(of line: AppLogReadLine, _ alignment: AppLogAlignment?) -> Int64? {
        line.rawTime.map { $0 &+ (alignment?.offsetMicroseconds ?? 0) }
    }
}
