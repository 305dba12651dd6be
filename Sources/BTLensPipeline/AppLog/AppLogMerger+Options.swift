import BTLensAppLog
import BTLensCore
import Foundation

extension AppLogMerger {
    public struct Options {
        public var files: [String]
        public var format: AppLogFormat?
        /// `--app-log-offset`: the log's clock + this is the capture's; no content alignment.
        public var offsetMicroseconds: Int64?
        /// `--app-log-filter`: a tag, or a regular expression searched in the line.
        public var filter: String?
        /// `follow`: the logs grow; events are said as soon as the window has passed, with no
        /// second hold, and the offset as soon as every log has 3 lines agreeing on it (or after `liveAlignWait`).
        public var live: Bool
        /// The capture, whose bugreport's logcat `--app-log bugreport` names.
        public var capture: String?
        public init(
            files: [String], format: AppLogFormat? = nil, offsetMicroseconds: Int64? = nil, filter: String? = nil,
            live: Bool = false, capture: String? = nil
        ) {
            self.capture = capture
            self.files = files
            self.format = format
            self.offsetMicroseconds = offsetMicroseconds
            self.filter = filter
            self.live = live
        }
    }

    /// What `--app-log-filter` keeps: a line of its tag, or one it finds in (PCRE2, with its
    /// budget per match: a line past it is not kept, said once).
    static func keep(_ filter: String?) throws -> (AppLogLine) -> Bool {
        guard let filter else { return { _ in true } }
        let regex: SharedRegex
        do {
            regex = try SharedRegex(filter, use: "--app-log-filter")
        } catch {
            throw AppLogOpenError(
                message: "--app-log-filter \(filter): not a regular expression: \(error)", usage: true)
        }
        return { l in l.tag == filter || regex.matches(l.text) }
    }

    /// `bugreport` is the capture's bugreport (a file: it is read twice); a bugreport (a zip, or
    /// dumpstate's text) given by name is read for its logcat too; any other file is read as a log.
    static func source(_ file: String, _ options: Options, _ keep: @escaping (AppLogLine) -> Bool) throws
        -> AppLogSource
    {
        guard file == "bugreport" else {
            return try AppLogSource.open(file, format: options.format, keep: keep, growing: options.live)
        }
        guard let capture = options.capture, FolderRun.notRegularFile(capture) == nil else {
            throw AppLogOpenError(
                message:
                    "--app-log bugreport reads the logcat of the capture's bugreport, which must be a file: \(options.capture.map { "\($0) is not one" } ?? "there is no capture file")",
                usage: true)
        }
        let source = try AppLogSource.open(capture, format: options.format, keep: keep, growing: false)
        guard source.bugreport else {
            throw AppLogOpenError(
                message:
                    "--app-log bugreport reads the logcat of the capture's bugreport, and \(capture) is not one (a bugreport .zip or its dumpstate text)",
                usage: true)
        }
        return source
    }
}
