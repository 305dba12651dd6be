/// The layouts of app log lines btlens reads. All but `custom` are recognised by content
/// (`detect`). logcat's `brief`, `process` and `tag` write no time: their lines' `time` is nil.
public enum AppLogFormat: Sendable, Equatable, CustomStringConvertible {
    case logcatThreadtime
    case logcatTime
    case logcatBrief
    case logcatProcess
    case logcatTag
    case osLogDefault
    case osLogCompact
    case osLogNDJSON
    case xcode
    /// An app's own logger: lines beginning with a time, with bracketed tags (`TimestampedParser`).
    case timestamped
    case custom(AppLogPattern)

    /// The formats `detect` tries, most specific first: where two parse as many lines (an Xcode
    /// line is a timestamped line too), the earlier wins.
    public static let detectable: [AppLogFormat] = [
        .osLogNDJSON, .osLogDefault, .osLogCompact, .logcatThreadtime, .logcatTime, .xcode, .logcatBrief,
        .logcatProcess, .logcatTag, .timestamped,
    ]

    /// How many non-empty lines `detect` looks at.
    public static let detectionLines = 50
    /// An untimed format has no time to vouch for it: it is detected only from this many
    /// consecutive lines of it (`I/O error: …` alone is not a log).
    public static let untimedRun = 3

    public var description: String {
        switch self {
        case .logcatThreadtime: return "logcat threadtime"
        case .logcatTime: return "logcat time"
        case .logcatBrief: return "logcat brief"
        case .logcatProcess: return "logcat process"
        case .logcatTag: return "logcat tag"
        case .osLogDefault: return "log show"
        case .osLogCompact: return "log show compact"
        case .osLogNDJSON: return "log show ndjson"
        case .xcode: return "Xcode console"
        case .timestamped: return "timestamped"
        case .custom(let p): return "pattern \(p.pattern)"
        }
    }

    /// Whether its lines carry a time (all but logcat `brief`, `process` and `tag`).
    public var isTimed: Bool { self != .logcatBrief && self != .logcatProcess && self != .logcatTag }

    /// Whether a line it does not parse continues the entry before it; ndjson lines stand alone.
    var hasContinuations: Bool { self != .osLogNDJSON }

    /// The format that parses most of the first 50 non-empty lines; nil when none parses any (an
    /// untimed one: when none parses `untimedRun` consecutive lines).
    public static func detect(firstLines: [String]) -> AppLogFormat? {
        let lines = Array(firstLines.lazy.map { Array($0.utf8) }.filter { !$0.isEmpty }.prefix(detectionLines))
        var best: (format: AppLogFormat, count: Int)?
        for format in detectable {
            var (count, run, longest) = (0, 0, 0)
            for line in lines {
                run = format.fields(line) == nil ? 0 : run + 1
                count += run > 0 ? 1 : 0
                longest = max(longest, run)
            }
            if !format.isTimed && longest < untimedRun { continue }
            if count > 0 && count > best?.count ?? 0 { best = (format, count) }
        }
        return best?.format
    }

    /// What one physical line holds, or nil when it is not a line of this format.
    func fields(_ line: [UInt8]) -> LogFields? {
        switch self {
        case .logcatThreadtime: return LogcatParser.threadtime(line)
        case .logcatTime: return LogcatParser.time(line)
        case .logcatBrief: return LogcatParser.brief(line)
        case .logcatProcess: return LogcatParser.process(line)
        case .logcatTag: return LogcatParser.tag(line)
        case .osLogDefault: return OSLogParser.defaultStyle(line)
        case .osLogCompact: return OSLogParser.compact(line)
        case .osLogNDJSON: return OSLogNDJSON.fields(line)
        case .xcode: return OSLogParser.xcode(line)
        case .timestamped: return TimestampedParser.parse(line)
        case .custom(let pattern): return pattern.parse(line)
        }
    }
}
