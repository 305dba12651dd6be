import BTLensAppLog
import BTLensCapture
import BTLensCore
import BTLensPipeline
import Foundation

/// Which app logs go with which capture when many are read at once (`--app-log-beside`): the log
/// beside the capture whose name is the capture's with its extension replaced by a suffix
/// (`run1.btsnoop` and `run1.app.log` for `.app.log`), or `bugreport`: the logcat inside the
/// capture's own bugreport .zip.
public struct AppLogPairing: Sendable {
    public var suffixes: [String]
    /// `--app-log-filter`: a tag, or a regular expression searched in the line.
    public var filter: String?
    /// `--app-log-format`: a pattern for a log of no format btlens knows.
    public var format: AppLogFormat?

    public init(suffixes: [String] = [], filter: String? = nil, format: AppLogFormat? = nil) {
        self.suffixes = suffixes
        self.filter = filter
        self.format = format
    }

    /// The logs there are for `capture`, in the order of the suffixes.
    public func logs(for capture: String) -> [String] {
        let url = URL(fileURLWithPath: capture)
        let stem = url.deletingPathExtension().path
        return suffixes.compactMap { suffix in
            if suffix == "bugreport" { return BugreportArchive.isZip(path: capture) ? "bugreport" : nil }
            // A FIFO or device named like a log is not one: it would block or never end.
            let log = stem + suffix
            guard log != capture, let st = OS.status(path: log), st.st_mode & S_IFMT == S_IFREG else { return nil }
            return log
        }
    }

    /// Whether `path` is a log some capture beside it would take: not itself indexed as a capture.
    public func isLog(_ path: String) -> Bool {
        suffixes.contains { $0 != "bugreport" && path.hasSuffix($0) }
    }

    /// The merger for `logs`, nil when there are none.
    func merger(_ logs: [String], capture: String) throws -> AppLogMerger? {
        guard !logs.isEmpty else { return nil }
        return try AppLogMerger(.init(files: logs, format: format, filter: filter, capture: capture))
    }

    /// What tells whether the logs changed: each one's path, size and time.
    func stamp(_ logs: [String]) -> String {
        logs.map { log in
            guard log != "bugreport", let st = OS.status(path: log) else { return log }
            return "\(log) \(st.st_size) \(OS.modifiedNanoseconds(st))"
        }.joined(separator: "; ")
    }
}
