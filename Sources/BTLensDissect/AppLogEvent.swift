import BTLensCore

/// A line of the app's own log, placed on the capture's clock (`--app-log`).
public struct AppLogEntry: Sendable {
    /// The log file, as named on the command line.
    public var source: String
    /// Its 1-based line number in the file.
    public var line: Int
    public var level: String?
    public var tag: String?
    public var message: String
    /// The record whose bytes the line shows (the same bytes, within the matching window).
    public var matchesRecord: Int?

    /// The keys JSONL writes after `time`, in its order (`message` too).
    public var fields: [(String, FieldValue)] {
        var f: [(String, FieldValue)] = [("source", .string(source)), ("line", .int(line))]
        if let level { f.append(("level", .string(level))) }
        if let tag { f.append(("tag", .string(tag))) }
        f.append(("message", .string(message)))
        if let matchesRecord { f.append(("matches_record", .int(matchesRecord))) }
        return f
    }

    /// How text names each of several logs: its file name, or the path given where two logs share one.
    public static func names(_ sources: [String]) -> [String: String] {
        guard sources.count > 1 else { return [:] }
        let base = { (s: String) in String(s.split(separator: "/").last ?? Substring(s)) }
        let counts = Dictionary(grouping: sources, by: base).mapValues(\.count)
        return Dictionary(sources.map { ($0, counts[base($0), default: 0] > 1 ? $0 : base($0)) }) { a, _ in a }
    }

    public init(source: String, line: Int, level: String?, tag: String?, message: String, matchesRecord: Int?) {
        self.source = source
        self.line = line
        self.level = level
        self.tag = tag
        self.message = message
        self.matchesRecord = matchesRecord
    }
}

/// How a log's clock was put on the capture's: said once per log, before its first line.
public struct AppLogAlignment: Sendable {
    public enum Method: String, Sendable {
        /// From lines whose bytes are the capture's.
        case content
        /// `--app-log-offset`.
        case given
        /// Nothing matched: the log's own clock, read as UTC.
        case clock
        /// Nothing matched, and the log writes its zone: its local time is the capture's clock, as
        /// a phone that writes its local time as UTC (an Android btsnoop log) puts it.
        case localClock = "local_clock"
    }
    public var source: String
    /// Added to the log's times (read as UTC) to give the capture's.
    public var offsetMicroseconds: Int64
    /// Lines whose bytes agreed with that offset.
    public var matched: Int
    public var method: Method
    /// The log writes no time (logcat `brief`): each line with bytes is placed at the value they
    /// are, the others after the line before; `offsetMicroseconds` is 0.
    public var untimed: Bool
    /// Found over the whole capture, its first minute having placed too few lines.
    public var wholeCapture: Bool
    /// Found from the log's first this many lines, fewer than `AppLogBounds.readAhead`: the bytes of
    /// the lines read ahead to find it passed their bound (long lines). Nil when not cut.
    public var readAheadLines: Int?

    /// The keys JSONL writes after `time`, in its order.
    public var fields: [(String, FieldValue)] {
        [
            ("source", .string(source)), ("offset_ms", .decimal(offsetMicroseconds, scale: 3)),
            ("matched", .int(matched)), ("method", .string(method.rawValue)),
        ] + (untimed ? [("untimed", .bool(true))] : []) + (wholeCapture ? [("whole_capture", .bool(true))] : [])
            + (readAheadLines.map { [("read_ahead_lines", .int($0))] } ?? [])
    }

    public init(
        source: String, offsetMicroseconds: Int64, matched: Int, method: Method, untimed: Bool = false,
        wholeCapture: Bool = false
    ) {
        self.source = source
        self.offsetMicroseconds = offsetMicroseconds
        self.matched = matched
        self.method = method
        self.untimed = untimed
        self.wholeCapture = wholeCapture
    }
}
