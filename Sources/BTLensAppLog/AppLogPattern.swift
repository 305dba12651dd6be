import BTLensCore

/// A user's regular expression for a log no built-in format reads, with named groups `time`
/// (required), `level`, `tag`, `message` (optional; without it the message is what follows the
/// match). The time is read by the built-in time parser, or by `timeFormat` when one is given
/// (`LogTimeFormat`). PCRE2 syntax (`SharedRegex`, with its budget per match); the pattern is
/// searched for in each line (anchor it with `^` to match from the start). A line it does not
/// match, or whose match runs past the budget, continues the entry before it.
public struct AppLogPattern: Sendable, Equatable {
    public let pattern: String
    public let timeFormat: LogTimeFormat?
    private let regex: SharedRegex
    /// The numbers of the groups time, level, tag and message (0 where absent: the whole match,
    /// which is never read for them).
    private let groups: [Int]

    public init(_ pattern: String, timeFormat: String? = nil) throws {
        let regex: SharedRegex
        do {
            regex = try SharedRegex(pattern, use: "--app-log-format")
        } catch {
            throw AppLogError.badPattern(pattern, "\(error)")
        }
        guard let time = regex.group(named: "time") else {
            throw AppLogError.badPattern(pattern, "it has no group named time, as in (?<time>…)")
        }
        groups = [time] + ["level", "tag", "message"].map { regex.group(named: $0) ?? 0 }
        self.regex = regex
        self.pattern = pattern
        self.timeFormat = try timeFormat.map(LogTimeFormat.init)
    }

    public static func == (a: AppLogPattern, b: AppLogPattern) -> Bool {
        a.pattern == b.pattern && a.timeFormat == b.timeFormat
    }

    /// Whether the pattern reads `line`: it matches, and its time group reads as a time.
    public func reads(_ line: Substring) -> Bool { parse(Array(line.utf8)) != nil }

    func parse(_ line: [UInt8]) -> LogFields? {
        let text = String(line: line)
        guard case .found(let ranges) = regex.search(text, groups: groups), let whole = ranges[0] else { return nil }
        let utf8 = Array(text.utf8)
        func group(_ i: Int) -> String? {
            guard groups[i] != 0, let r = ranges[i + 1] else { return nil }
            return String(decoding: utf8[r], as: UTF8.self)
        }
        guard let timeText = group(0).map({ Substring($0) }),
            let time = timeFormat?.parse(timeText)
                ?? (timeFormat == nil ? LogTimeParser.parse(whole: timeText) : nil)
        else { return nil }
        let message =
            group(3) ?? String(decoding: utf8[whole.upperBound...].drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
        return LogFields(time: time, level: group(1), tag: group(2), message: message)
    }
}
