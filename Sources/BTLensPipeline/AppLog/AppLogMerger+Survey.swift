import BTLensAppLog
import BTLensCore
import BTLensDissect
import Foundation

/// A log the capture's first minute places too few lines of: its offset over the whole capture
/// (`AppLogSurvey`), else, when nothing matches, its clock read as the capture's local time.
extension AppLogMerger {
    /// Fewer lines than this agreeing in the first minute: the whole capture is surveyed.
    static let confidentLines = 3

    /// The alignment `a` found in the first minute for log `i`, or a better one: over the whole
    /// capture (when `reread` can read it again and the log is a file), else its local clock.
    func better(_ a: AppLogAlignment, _ i: Int) throws -> AppLogAlignment {
        guard a.method != .given, !a.untimed, !convincing(a, sources[i].ahead) else { return a }
        if let reread, Self.isRegularFile(options.files[i]) || options.files[i] == "bugreport" {
            var survey = AppLogSurvey()
            let log = try Self.source(options.files[i], options, { _ in true })
            log.reference = firstEventTime ?? log.reference
            while let line = try log.next() {
                survey.add(line)
                // What its lines' problems are is said by the log's own reading, not this one.
                log.problems.removeAll(keepingCapacity: true)
            }
            if !survey.isEmpty {
                try reread { survey.add($0) }
                let (offset, matched) = survey.offset(priors: AppLogClock.priors(sources[i].ahead))
                if matched > a.matched {
                    return AppLogAlignment(
                        source: a.source, offsetMicroseconds: offset, matched: matched, method: .content,
                        wholeCapture: true)
                }
            }
        }
        guard a.matched == 0 else { return a }
        return localClock(a, sources[i].ahead) ?? a
    }

    /// At least `confidentLines` agree, and at least half the lines with bytes that the offset
    /// puts within the capture so far: values repeated through a capture can agree by chance on
    /// an offset that places a few lines among many.
    private func convincing(_ a: AppLogAlignment, _ lines: [AppLogReadLine]) -> Bool {
        guard a.matched >= Self.confidentLines, let first = firstEventTime else { return false }
        let span = first...max(first, newest)
        let placed = lines.count { line in
            guard let at = line.rawTime, span.contains(at &+ a.offsetMicroseconds) else { return false }
            return line.runs.contains { $0.bytes.count >= 3 && !$0.isWeak }
        }
        return a.matched * 2 >= placed
    }

    /// A log that writes its zone and that nothing placed: read at its local time when that puts its
    /// first line nearer the capture's first event than UTC does (a phone's btsnoop log writes its
    /// local time as UTC).
    private func localClock(_ a: AppLogAlignment, _ lines: [AppLogReadLine]) -> AppLogAlignment? {
        guard let first = firstEventTime,
            let line = lines.first(where: { $0.rawTime != nil && $0.line.time?.utcOffsetSeconds != nil }),
            let at = line.rawTime, let zone = line.line.time?.utcOffsetSeconds, zone != 0
        else { return nil }
        let shifted = at &+ Int64(zone) * 1_000_000
        guard (shifted &- first).magnitude < (at &- first).magnitude else { return nil }
        return AppLogAlignment(
            source: a.source, offsetMicroseconds: Int64(zone) * 1_000_000, matched: 0, method: .localClock)
    }

    private static func isRegularFile(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
    }
}
