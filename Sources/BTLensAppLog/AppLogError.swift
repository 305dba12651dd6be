/// Why an app log cannot be read at all (a problem with one line is a diagnostic instead).
public enum AppLogError: Error, Equatable, CustomStringConvertible {
    /// No format parses any of the first lines; `line` is the first non-empty one.
    case unrecognised(line: String)
    /// The format writes no time, so its lines cannot be placed on a timeline.
    case untimed(AppLogFormat)
    /// A custom pattern that does not compile or lacks a `time` group.
    case badPattern(String, String)
    /// A custom time layout with an unknown directive.
    case badTimeFormat(String, String)

    public var description: String {
        switch self {
        case .unrecognised(let line):
            return "not an app log btlens recognises (logcat, log show, Xcode, or lines beginning with a time): "
                + "its first line is \"\(line.prefix(120))\"; give a pattern with named groups time, message"
        case .untimed(let format):
            return "\(format) lines carry no time, so they cannot be placed beside a capture: "
                + "take the log with `adb logcat -v threadtime` (or `-v time`)"
        case .badPattern(let pattern, let why):
            return "the app log pattern \"\(pattern)\" cannot be used: \(why)"
        case .badTimeFormat(let layout, let why):
            return "the app log time format \"\(layout)\" cannot be used: \(why)"
        }
    }
}
