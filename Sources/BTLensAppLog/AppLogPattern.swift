import BTLensCore

/// A user's regular expression for a log no built-in format reads, with named groups `time`
/// (required), `level`, `tag`, `message` (optional; without it the message is what follows the
/// match). The time is read by the built-in time parser, or by `timeFormat` when one is given
/// (`LogTimeFormat`). Swift's `Regex` syntax; the pattern is searched for in each line (anchor it
/// with `^` to match from the start). A line it does not match continues the entry before it.
public struct AppLogPattern: Sendable, Equatable {
    public let pattern: String
    public let timeFormat: LogTimeFormat?
    private let regex: SharedRegex

    public init(_ pattern: String, timeFormat: String? = nil) throws {
        let compiled: Regex<AnyRegexOutput>
        do {
            compiled = try Regex(pattern)
        } catch {
            throw AppLogError.badPattern(pattern, "\(error)")
        }
        guard compiled.contains(captureNamed: "time") else {
            throw AppLogError.badPattern(pattern, "it has no group named time, as in (?<time>…)")
        }
        regex = SharedRegex(compiled)
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
        return regex.withRegex { regex in
            guard let match = try? regex.firstMatch(in: text), let timeText = match.output["time"]?.substring,
                let time = timeFormat?.parse(timeText)
                    ?? (timeFormat == nil ? LogTimeParser.parse(whole: timeText) : nil)
            else { return nil }
            let message =
                match.output["message"]?.substring.map(String.init)
                ?? String(text[match.range.upperBound...].drop { $0 == " " })
            return LogFields(
                time: time, level: match.output["level"]?.substring.map(String.init),
                tag: match.output["tag"]?.substring.map(String.init), message: message)
        }
    }
}
