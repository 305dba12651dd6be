import ArgumentParser
import BTLensAppLog
import BTLensDissect
import BTLensPipeline
import Foundation

/// `--app-log` and its companions: the app's own logs placed on the timeline.
struct AppLogOptions: ParsableArguments {
    @Option(
        name: .customLong("app-log"),
        help: ArgumentHelp(
            "An app log to place on the timeline beside the capture (logcat, log show, Xcode console, or lines that begin with a time; `bugreport`: the logcat of the capture's Android bugreport): its clock is aligned by the bytes it shows. Repeatable.",
            valueName: "FILE"))
    var files: [String] = []

    @Option(
        name: .customLong("app-log-format"),
        help: ArgumentHelp(
            "The format of every --app-log, when theirs is not recognised: a regular expression with named groups time, message, and optionally level and tag.",
            valueName: "REGEX"))
    var format: String?

    @Option(
        name: .customLong("app-log-time-format"),
        help: ArgumentHelp(
            "The layout of --app-log-format's time group, when the built-in parser does not read it: %Y %y %m %d %H %M %S %f (fraction) %b (Jan) %z %T %%, e.g. '%d/%m/%Y %H:%M:%S.%f'.",
            valueName: "LAYOUT"))
    var timeFormat: String?

    @Option(
        name: .customLong("app-log-offset"),
        help: ArgumentHelp(
            "Milliseconds (a fraction too, as log.alignment says them) to add to the logs' times (read as UTC) to give the capture's, instead of aligning by content; a negative one as --app-log-offset=-3600000.",
            valueName: "MS"))
    var offset: Double?

    @Option(
        name: .customLong("app-log-filter"),
        help: ArgumentHelp(
            "Show only the log lines with this tag, or that this regular expression finds (every line still aligns and matches).",
            valueName: "TAG|REGEX"))
    var filter: String?

    /// `--app-log-offset` in microseconds: milliseconds with a fraction, as `log.alignment` says them.
    private func offsetMicroseconds() throws -> Int64? {
        guard let offset else { return nil }
        // A century either way: more is no clock difference.
        guard offset.isFinite, abs(offset) <= 3.2e12 else {
            throw ValidationError("--app-log-offset \(offset): expected milliseconds within a century")
        }
        return Int64((offset * 1000).rounded())
    }

    /// A log that cannot be named or read as asked is a usage error (2); one whose content cannot
    /// be read (no format btlens knows, a damaged bugreport) is an input failure (1), as a capture's.
    /// `--app-log-format` and its time group's layout as a format (nil: detected by content); a
    /// refused one is a usage error.
    static func format(_ format: String?, timeFormat: String?) throws -> AppLogFormat? {
        if timeFormat != nil && format == nil {
            throw ValidationError("--app-log-time-format is the layout of --app-log-format's time group: give both")
        }
        guard let format else { return nil }
        do { return .custom(try AppLogPattern(format, timeFormat: timeFormat)) } catch {
            throw ValidationError("--app-log-format \(format): \(error)")
        }
    }

    static func failure(_ error: any Error) -> any Error {
        guard let e = error as? AppLogOpenError, !e.usage else { return ValidationError("\(error)") }
        return InputFailure(message: e.message)
    }

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
    func merger(only: [String]? = nil, live: Bool = false, capture: String? = nil) throws -> AppLogMerger? {
        let files = only ?? files
        guard !files.isEmpty else {
            guard only == nil else { return nil }
            if format != nil || timeFormat != nil || offset != nil || filter != nil {
                throw ValidationError(
                    "--app-log-format, --app-log-time-format, --app-log-offset and --app-log-filter need --app-log FILE"
                )
            }
            return nil
        }
        // The same file, however it is named (./a.log, a symlink to it).
        let same = { (f: String) in URL(fileURLWithPath: f).resolvingSymlinksInPath().standardizedFileURL.path }
        if let twice = Dictionary(grouping: files, by: same).first(where: { $0.value.count > 1 }) {
            throw ValidationError("--app-log \(twice.value.joined(separator: " and ")): the same log given twice")
        }
        let pattern = try Self.format(format, timeFormat: timeFormat)
        do {
            return try AppLogMerger(
                .init(
                    files: files, format: pattern, offsetMicroseconds: try offsetMicroseconds(), filter: filter,
                    live: live,
                    capture: capture))
        } catch {
            throw Self.failure(error)
        }
    }
}

extension AppLogMerger {
    /// Lets the merger read the capture again, for a log the capture's first minute does not
    /// place: a regular file only (standard input and a FIFO give their bytes once).
    func rereads(_ file: String, member: String? = nil, archiveBytes: Int, _ configuration: Configuration) {
        guard file != standardInputPath, FolderRun.notRegularFile(file) == nil else { return }
        reread = { each in
            var reader = try openCapture(file, member: member, archiveBytes: archiveBytes)
            try Pipeline.run(&reader, configuration, onEvent: each)
        }
    }
}
