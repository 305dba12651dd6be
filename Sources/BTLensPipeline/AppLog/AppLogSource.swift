import BTLensAppLog
import BTLensCapture
import BTLensCore
import BTLensDissect
import Foundation

/// One `--app-log` file, read as it is needed: 64 KiB at a time through the line reader, never
/// whole. Its lines come out in file order, with their bytes in hex found and their time read
/// on the log's own clock. The file may be an Android bugreport (its .zip, streamed through
/// inflate, or its text), of which the logcat is read; or a log still being written (`growing`).
final class AppLogSource {
    /// Where the bytes come from.
    private enum Input {
        case file(FileHandle)
        case member(ZipMemberStream)
        /// A growing log that does not exist yet (`follow` started before the app's logging).
        case missing
    }

    /// The most a bugreport's text is inflated to: it is streamed, so this bounds the time a zip
    /// bomb can take, not memory.
    static let bugreportBytes: Int64 = 4 << 30

    let name: String
    private let path: String
    private let format: AppLogFormat?
    /// An Android bugreport, whose logcat is read.
    let bugreport: Bool
    private let growing: Bool
    private var input: Input
    private var reader: AppLogReader
    /// Bytes read from the file, and its identity: a growing log that shrinks or is replaced is
    /// read again from its beginning.
    private var offset: UInt64 = 0
    private var inode: UInt64?
    /// `finish()` was called; the reader was told the end; it gave all it had.
    private var finishing = false
    private var told = false
    private var ended = false
    private let keep: (AppLogLine) -> Bool
    /// A line that writes no year takes the year that puts it nearest this time (µs since the
    /// epoch): set to the capture's first event, then moved to each timed line read, so that a
    /// logcat crossing New Year goes on into the next year.
    var reference = Int64(Date().timeIntervalSince1970 * 1e6)
    /// Lines read but not yet placed (while the offset is found, at most `AppLogBounds.readAhead`),
    /// from `aheadStart`.
    var ahead: [AppLogReadLine] = []
    private var aheadStart = 0
    /// The bytes of the lines read ahead (`AppLogReadLine.heldBytes`).
    var aheadBytes = 0
    /// Problems the reader found since the last line given, on the thread that reads.
    private var found: [(line: Int, diagnostic: Diagnostic)] = []
    private var prefetch: AppLogPrefetch?
    /// Problems the reader found (a line cut at its bound), said when their line is placed.
    var problems: [Int: [Diagnostic]] = [:]

    /// The first bytes of a log, read once when it is opened: a pipe or FIFO gives them once.
    static let headBytes = 65_536
    static let zipMagic: [UInt8] = [0x50, 0x4b, 0x03, 0x04]

    private init(
        name: String, path: String, input: Input, head: [UInt8], format: AppLogFormat?, bugreport: Bool,
        growing: Bool, keep: @escaping (AppLogLine) -> Bool
    ) {
        (self.name, self.path, self.input, self.format, self.bugreport, self.growing, self.keep) =
            (name, path, input, format, bugreport, growing, keep)
        reader = AppLogReader(format: format, bugreport: bugreport)
        reader.append(head)
        offset = UInt64(head.count)
        if case .file = input { inode = Self.identity(path)?.inode }
    }

    /// `growing`: the log is still being written (`follow`); its end is only the end for now.
    convenience init(path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool, growing: Bool = false)
        throws
    {
        // A growing log may appear later; a folder, or a file that cannot be read, is said now.
        let missing = growing && !FileManager.default.fileExists(atPath: path)
        self.init(
            name: path, path: path, input: missing ? .missing : .file(try Self.open(path)), head: [], format: format,
            bugreport: false, growing: growing, keep: keep)
    }

    /// A bugreport .zip, read through its central directory: a file, not a pipe.
    private convenience init(zip path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool) throws {
        guard FolderRun.notRegularFile(path) == nil else {
            throw AppLogOpenError(
                message:
                    "\(path): a bugreport .zip is read from its central directory, at its end: give it as a file, not a pipe",
                usage: true)
        }
        let member: ZipMemberStream
        do {
            member = try ZipMemberStream.bugreportText(in: path, limit: Self.bugreportBytes)
        } catch {
            throw AppLogOpenError(message: "\(path): \(error)")
        }
        self.init(
            name: "\(path) member \(member.member)", path: path, input: .member(member), head: [], format: format,
            bugreport: true, growing: false, keep: keep)
    }

    /// Opens `path` once, whatever it is (a file, a FIFO, a pipe such as `<(cat log)` or
    /// `/dev/stdin`), and reads it as its first bytes say: a bugreport (a zip, or text that
    /// dumpstate wrote) for its logcat, else a log. A custom `--app-log-format` that reads none of
    /// a log's first lines is a mistake, said now.
    static func open(_ path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool, growing: Bool)
        throws -> AppLogSource
    {
        guard !growing || FileManager.default.fileExists(atPath: path) else {
            return try AppLogSource(path: path, format: format, keep: keep, growing: true)
        }
        let handle = try Self.open(path)
        // A FIFO followed may have no line yet: nothing is waited for before the capture.
        let head = growing && FolderRun.notRegularFile(path) != nil ? [] : try read(handle, path, count: headBytes)
        if head.starts(with: zipMagic) {
            try? handle.close()
            return try AppLogSource(zip: path, format: format, keep: keep)
        }
        let dumpstate = String(decoding: head.prefix(4096), as: UTF8.self).contains("== dumpstate")
        if !dumpstate, case .custom(let pattern) = format { try check(pattern, head, path) }
        return AppLogSource(
            name: path, path: path, input: .file(handle), head: head, format: format, bugreport: dumpstate,
            growing: growing && !dumpstate, keep: keep)
    }

    /// A pattern that reads none of a log's first lines is a mistake, said before any output.
    private static func check(_ pattern: AppLogPattern, _ head: [UInt8], _ path: String) throws {
        let lines = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(200)
        guard !lines.isEmpty, !lines.contains(where: pattern.reads) else { return }
        throw AppLogOpenError(
            message:
                "\(path): --app-log-format reads none of its first \(lines.count) lines (each must match, and its time group read as a time: --app-log-time-format gives the time's layout)",
            usage: true)
    }

    /// A folder, a file that cannot be read, or a device other than a terminal or `/dev/null`
    /// (`/dev/zero` never ends; `/dev/null` is an empty log) is said now, as a usage error.
    private static func open(_ path: String) throws -> FileHandle {
        guard let st = OS.status(path: path) else {
            throw AppLogOpenError(message: "\(path): cannot be read: \(OS.openFailure(path, OS.errno))", usage: true)
        }
        guard st.st_mode & S_IFMT != S_IFDIR, let h = FileHandle(forReadingAtPath: path) else {
            let reason = OS.openFailure(path, st.st_mode & S_IFMT == S_IFDIR ? EISDIR : OS.errno)
            throw AppLogOpenError(message: "\(path): cannot be read: \(reason)", usage: true)
        }
        if [S_IFCHR, S_IFBLK].contains(st.st_mode & S_IFMT), !OS.isatty(h.fileDescriptor), !isNull(st) {
            try? h.close()
            throw AppLogOpenError(
                message:
                    "\(path): a device, not a log file: btlens reads no device but a terminal or /dev/null (give a file, a FIFO or a pipe)",
                usage: true)
        }
        return h
    }

    /// Whether `st` is the null device (whatever its name), which reads as empty.
    private static func isNull(_ st: stat) -> Bool {
        guard let null = OS.status(path: "/dev/null") else { return false }
        return st.st_mode & S_IFMT == S_IFCHR && null.st_mode & S_IFMT == S_IFCHR && st.st_rdev == null.st_rdev
    }

    /// Up to `count` bytes, fewer only at the end.
    private static func read(_ handle: FileHandle, _ path: String, count: Int) throws -> [UInt8] {
        // The throwing read: the old one traps on a directory or a read error.
        do {
            return try handle.read(upToCount: count).map { Array($0) } ?? []
        } catch {
            throw AppLogOpenError(message: "\(path): cannot be read (\(error.localizedDescription))")
        }
    }

    /// Reads the log's first lines until its format is known, so that a log btlens cannot read is
    /// said before any output (a usage error). A growing log may have no line yet: not read here.
    func detectFormat() throws {
        guard !growing else { return }
        do {
            while try reader.detectFormat() == nil {
                let chunk = try read()
                if chunk.isEmpty {
                    reader.finish()
                    told = true
                } else {
                    offset += UInt64(chunk.count)
                    reader.append(chunk)
                }
            }
        } catch let error as AppLogError {
            throw AppLogOpenError(message: "\(name): \(error)", usage: true)
        }
    }

    /// The next line read ahead, or the next from the file.
    func take() throws -> AppLogReadLine? {
        guard aheadStart < ahead.count else {
            ahead = []
            (aheadStart, aheadBytes) = (0, 0)
            return try next()
        }
        aheadStart += 1
        return ahead[aheadStart - 1]
    }

    /// Whether every line has been given: a growing log's only once `finish()` was called.
    var isEnded: Bool { ended }

    /// A growing log will not grow any more: its end is the end.
    func finish() { finishing = true }

    /// A growing log has been quiet: the entry held for its continuation lines comes out next.
    func flushPending() { reader.flush() }

    /// The next line, or nil at the end of the file (a growing log's: for now).
    func next() throws -> AppLogReadLine? {
        guard let prefetch else {
            let line = try parse()
            for (n, d) in found { problems[n, default: []].append(d) }
            found = []
            return line
        }
        return try prefetch.next { problems[$0, default: []].append($1) }
    }

    /// Lines read on a thread of their own from now on, a batch ahead (not a growing log's, whose
    /// end is only for now). The year's reference must be set first.
    func readOnAThread() {
        guard !growing, prefetch == nil else { return }
        prefetch = AppLogPrefetch { [self] in
            let line = try parse()
            defer { found = [] }
            return (line, found)
        }
    }

    /// Stops the reading thread, if there is one.
    func stopReading() { prefetch?.stop() }

    /// The next line from the reader (on the reading thread, once there is one).
    private func parse() throws -> AppLogReadLine? {
        while true {
            let item: AppLogItem?
            do {
                item = try reader.next()
            } catch {
                throw AppLogOpenError(message: "\(name): \(error)")
            }
            switch item {
            case .line(let l)?:
                let time = l.time.map { $0.microsecondsSinceEpoch(nearest: reference) }
                if let time { reference = time }
                return AppLogReadLine(line: l, rawTime: time, runs: HexBytes.find(in: l.message), kept: keep(l))
            case .problem(let p)?:
                found.append((p.line, p.diagnostic))
            case nil:
                if told {
                    ended = true
                    return nil
                }
                let chunk = try read()
                if !chunk.isEmpty {
                    offset += UInt64(chunk.count)
                    reader.append(chunk)
                } else if growing, try restartIfReplaced() {
                    continue
                } else if growing && !finishing {
                    return nil
                } else {
                    reader.finish()
                    told = true
                }
            }
        }
    }

    private func read() throws -> [UInt8] {
        switch input {
        case .file(let handle):
            return try Self.read(handle, name, count: 65_536)
        case .member(let stream):
            do {
                return try stream.read() ?? []
            } catch {
                throw AppLogOpenError(message: "\(name): \(error)")
            }
        case .missing:
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            input = .file(try Self.open(path))
            inode = Self.identity(path)?.inode
            return try read()
        }
    }

    /// A growing log that is shorter than what was read, or another file now, is read again from
    /// its beginning (its line numbers start again), silently; true when it was. The entry held
    /// for continuation lines, and a line not ended, are dropped with the old file.
    private func restartIfReplaced() throws -> Bool {
        guard let now = Self.identity(path), now.size < offset || now.inode != inode else { return false }
        let handle = try Self.open(path)
        if case .file(let old) = input { try? old.close() }
        input = .file(handle)
        (offset, inode) = (0, now.inode)
        // The same log rotated: the format found stays.
        reader = AppLogReader(format: format ?? reader.format, bugreport: bugreport)
        return true
    }

    private static func identity(_ path: String) -> (inode: UInt64, size: UInt64)? {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path),
            let inode = (a[.systemFileNumber] as? NSNumber)?.uint64Value,
            let size = (a[.size] as? NSNumber)?.uint64Value
        else { return nil }
        return (inode, size)
    }
}

/// A log that cannot be read: said as a usage error.
public struct AppLogOpenError: Error, CustomStringConvertible {
    public var message: String
    /// The log was named or asked for wrongly (a missing file, a bad pattern), not unreadable.
    public var usage = false
    public var description: String { message }
}
