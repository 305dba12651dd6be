import ArgumentParser
import BTLensAppLog
import BTLensPipeline

/// `--app-log` and its companions: the app's own logs placed on the timeline.
struct AppLogOptions: ParsableArguments {
    @Option(
        name: .customLong("app-log"),
        help: ArgumentHelp(
            "An app log to place on the timeline beside the capture (logcat, log show, Xcode console, or lines that begin with a time): its clock is aligned by the bytes it shows. Repeatable.",
            valueName: "FILE"))
    var files: [String] = []

    @Option(
        name: .customLong("app-log-format"),
        help: ArgumentHelp(
            "The format of every --app-log, when theirs is not recognised: a regular expression with named groups time, message, and optionally level and tag.",
            valueName: "REGEX"))
    var format: String?

    @Option(
        name: .customLong("app-log-offset"),
        help: ArgumentHelp(
            "Milliseconds to add to the logs' times (read as UTC) to give the capture's, instead of aligning by content; a negative one as --app-log-offset=-3600000.",
            valueName: "MS"))
    var offset: Int64?

    @Option(
        name: .customLong("app-log-filter"),
        help: ArgumentHelp(
            "Show only the log lines with this tag, or that this regular expression finds (every line still aligns and matches).",
            valueName: "TAG|REGEX"))
    var filter: String?

    /// `diff`'s logs: each `before:FILE` or `after:FILE`; two plain files are the before's and the after's.
    func sides() throws -> (before: [String], after: [String]) {
        var before: [String] = []
        var after: [String] = []
        var plain: [String] = []
        for f in files {
            if f.hasPrefix("before:") {
                before.append(String(f.dropFirst(7)))
            } else if f.hasPrefix("after:") {
                after.append(String(f.dropFirst(6)))
            } else {
                plain.append(f)
            }
        }
        guard plain.isEmpty || (plain.count == 2 && before.isEmpty && after.isEmpty) else {
            throw ValidationError(
                "diff takes two plain --app-log files (the before's, then the after's), or each as before:FILE or after:FILE"
            )
        }
        return plain.isEmpty ? (before, after) : ([plain[0]], [plain[1]])
    }

    /// The merger for the logs given (or for `only` of them), or nil when there are none.
    func merger(only: [String]? = nil, live: Bool = false) throws -> AppLogMerger? {
        let files = only ?? files
        guard !files.isEmpty else {
            guard only == nil else { return nil }
            if format != nil || offset != nil || filter != nil {
                throw ValidationError("--app-log-format, --app-log-offset and --app-log-filter need --app-log FILE")
            }
            return nil
        }
        var pattern: AppLogFormat?
        if let format {
            do {
                pattern = .custom(try AppLogPattern(format))
            } catch {
                throw ValidationError("--app-log-format \(format): \(error)")
            }
        }
        do {
            return try AppLogMerger(
                .init(files: files, format: pattern, offsetMilliseconds: offset, filter: filter, live: live))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
