/// Why an app log cannot be read at all (a problem with one line is a diagnostic instead).
public enum AppLogError: Error, Equatable, CustomStringConvertible {
    /// No format parses any of the first lines; `line` is the first non-empty one.
    case unrecognised(line: String)
    /// A bugreport with no logcat section (`BugreportSections`).
    case noLogcat
    /// A custom pattern that does not compile or lacks a `time` group.
    case badPattern(String, String)
    /// A custom time layout with an unknown directive.
    case badTimeFormat(String, String)
    /// A line that ran past `AppLogLimits.endlessLineBytes` with no end (`/dev/zero`): no text.
    case endlessLine(line: Int, limit: Int)

    public var description: String {
        switch self {
        case .unrecognised(let line):
            return "not an app log btlens recognises (logcat, log show, Xcode, or lines beginning with a time): "
                + "its first line is \"\(Self.printable(line[...]))\"; give --app-log-format with a pattern whose named groups are time and message"
        case .noLogcat:
            return "no logcat in this bugreport: it has no \"------ SYSTEM LOG (logcat …) ------\" section"
        case .badPattern(let pattern, let why):
            return "the app log pattern \"\(pattern)\" cannot be used: \(why)"
        case .badTimeFormat(let layout, let why):
            return "the app log time format \"\(layout)\" cannot be used: \(why)"
        case .endlessLine(let line, let limit):
            return "line \(line) runs past \(limit >> 20) MiB with no line end: not a text log"
        }
    }

    /// A line as a terminal can show it, its first `limit` characters: control characters and
    /// U+FFFD as `\u{…}` escapes.
    static func printable(_ text: Substring, limit: Int = 120) -> String {
        var out = ""
        for u in text.unicodeScalars {
            guard out.count < limit else { return out + "…" }
            out +=
                u.properties.generalCategory == .control || u == "\u{FFFD}"
                ? "\\u{\(String(u.value, radix: 16))}" : String(u)
        }
        return out
    }
}
