import BTLensCore

/// The problems reading an app log finds, each naming the line (1-based, in its file).
public enum AppLogDiagnostics {
    public static let lineLong = DiagnosticKind(
        "applog.line.long", .warning,
        "An app log line is longer than 65,536 bytes; its first 65,536 bytes are read and the rest skipped.")
    public static let entryLong = DiagnosticKind(
        "applog.entry.long", .warning,
        "A multi-line app log entry would pass 262,144 bytes; its further continuation lines are dropped.")
    public static let lineUnparsed = DiagnosticKind(
        "applog.line.unparsed", .note,
        "An ndjson app log line is not a log event (no object, or no timestamp it can read); it is skipped.")

    public static let all = [lineLong, entryLong, lineUnparsed]
}
