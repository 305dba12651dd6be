/// The layouts of app log lines btlens reads. All but `custom` are recognised by content
/// (`detect`); `logcatBrief` is recognised only to be refused, as it writes no time.
public enum AppLogFormat: Sendable, Equatable, CustomStringConvertible {
    case logcatThreadtime
    case logcatTime
    case logcatBrief
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
        .timestamped,
    ]

    /// How many non-empty lines `detect` looks at.
    public static let detectionLines = 50

    public var description: String {
        switch self {
        case .logcatThreadtime: return "logcat threadtime"
        case .logcatTime: return "logcat time"
        case .logcatBrief: return "logcat brief"
        case .osLogDefault: return "log show"
        case .osLogCompact: return "log show compact"
        case .osLogNDJSON: return "log show ndjson"
        case .xcode: return "Xcode console"
        case .timestamped: return "timestamped"
        case .custom(let p): return "pattern \(p.pattern)"
        }
    }

    /// Whether its lines carry a time (all but logcat `brief`).
    public var isTimed: Bool { self != .logcatBrief }

    /// Whether a line it does not parse continues the entry before it; ndjson lines stand alone.
    var hasContinuations: Bool { self != .osLogNDJSON }

    /// The format that parses most of the first 50 non-empty lines; nil when none parses any.
    public static func detect(firstLines: [String]) -> AppLogFormat? {
        let lines = firstLines.lazy.map { Array($0.utf8) }.filter { !$0.isEmpty }.prefix(detectionLines)
        var best: (format: AppLogFormat, count: Int)?
        for format in detectable {
            let count = lines.reduce(0) { $0 + (format.fields($1) == nil ? 0 : 1) }
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
        case .osLogDefault: return OSLogParser.defaultStyle(line)
        case .osLogCompact: return OSLogParser.compact(line)
        case .osLogNDJSON: return OSLogNDJSON.fields(line)
        case .xcode: return OSLogParser.xcode(line)
        case .timestamped: return TimestampedParser.parse(line)
        case .custom(let pattern): return pattern.parse(line)
        }
    }
}
