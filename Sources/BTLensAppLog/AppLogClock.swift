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
        return densest(offsets)
    }

    /// The offset most candidates agree on within a second, and how many: their median.
    public static func densest(_ offsets: [Int64]) -> (Int64, Int) {
        let sorted = offsets.sorted()
        var best = (start: 0, count: 0)
        var start = 0
        for end in sorted.indices {
            while sorted[end] &- sorted[start] > 1_000_000 { start += 1 }
            if end - start + 1 > best.count { best = (start, end - start + 1) }
        }
        guard best.count > 0 else { return (0, 0) }
        return (sorted[best.start + best.count / 2], best.count)
    }

    /// A timed line's time on the capture's clock; nil for one that writes no time.
    public static func time(of line: AppLogReadLine, _ alignment: AppLogAlignment?) -> Int64? {
        line.rawTime.map { $0 &+ (alignment?.offsetMicroseconds ?? 0) }
    }
}
