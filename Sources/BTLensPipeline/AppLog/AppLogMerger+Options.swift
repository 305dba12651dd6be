import BTLensAppLog
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

    /// What `--app-log-filter` keeps: a line of its tag, or one it finds in.
    static func keep(_ filter: String?) throws -> (AppLogLine) -> Bool {
        guard let filter else { return { _ in true } }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: filter)
        } catch {
            throw AppLogOpenError(message: "--app-log-filter \(filter): not a regular expression", usage: true)
        }
        return { l in
            if l.tag == filter { return true }
            let range = NSRange(l.text.startIndex..., in: l.text)
            return regex.firstMatch(in: l.text, range: range) != nil
        }
    }

    /// `bugreport` is the capture's bugreport; a bugreport (a zip, or dumpstate's text) given by
    /// name is read for its logcat too; any other file is read as a log.
    static func source(_ file: String, _ options: Options, _ keep: @escaping (AppLogLine) -> Bool) throws
        -> AppLogSource
    {
        if file == "bugreport" {
            guard let capture = options.capture else {
                throw AppLogOpenError(
                    message:
                        "--app-log bugreport reads the logcat of the capture's bugreport: there is no capture file",
                    usage: true)
            }
            guard isBugreport(capture) else {
                throw AppLogOpenError(
                    message:
                        "--app-log bugreport reads the logcat of the capture's bugreport, and \(capture) is not one (a bugreport .zip or its dumpstate text)",
                    usage: true)
            }
            return try AppLogSource(bugreport: capture, format: options.format, keep: keep)
        }
        if isBugreport(file) { return try AppLogSource(bugreport: file, format: options.format, keep: keep) }
        let source = try AppLogSource(path: file, format: options.format, keep: keep, growing: options.live)
        if case .custom(let pattern) = options.format { try check(pattern, on: file) }
        return source
    }

    /// A pattern that reads none of a log's first lines is a mistake, said before any output.
    static func check(_ pattern: AppLogPattern, on file: String) throws {
        guard let h = FileHandle(forReadingAtPath: file), let head = try? h.read(upToCount: 65_536) else { return }
        try? h.close()
        let lines = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(200)
        guard !lines.isEmpty, !lines.contains(where: pattern.reads) else { return }
        throw AppLogOpenError(
            message:
                "\(file): --app-log-format reads none of its first \(lines.count) lines (each must match, and its time group read as a time: --app-log-time-format gives the time's layout)",
            usage: true)
    }

    /// A zip, or text that dumpstate wrote: from its first 4 KiB.
    static func isBugreport(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path), let head = try? h.read(upToCount: 4096) else { return false }
        try? h.close()
        return head.starts(with: [0x50, 0x4b, 0x03, 0x04])
            || String(decoding: head, as: UTF8.self).contains("== dumpstate")
    }
}
