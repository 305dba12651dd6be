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
    private let bugreport: Bool
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
    /// Problems the reader found since the last line given, on the thread that reads.
    private var found: [(line: Int, diagnostic: Diagnostic)] = []
    private var prefetch: AppLogPrefetch?
    /// Problems the reader found (a line cut at its bound), said when their line is placed.
    var problems: [Int: [Diagnostic]] = [:]

    /// `growing`: the log is still being written (`follow`); its end is only the end for now.
    init(path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool, growing: Bool = false) throws {
        (name, self.path, self.format, bugreport, self.growing, self.keep) = (path, path, format, false, growing, keep)
        // A growing log may appear later; a folder, or a file that cannot be read, is said now.
        if growing && !FileManager.default.fileExists(atPath: path) {
            input = .missing
        } else {
            input = .file(try Self.open(path))
        }
        inode = Self.identity(path)?.inode
        reader = AppLogReader(format: format)
    }

    /// The logcat inside an Android bugreport: its .zip (the main `bugreport-*.txt` member, named in
    /// `name`) or that text itself. Line numbers are the text's.
    init(bugreport path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool) throws {
        let handle = try Self.open(path)
        let magic = (try? handle.read(upToCount: 4)).map { Array($0) } ?? []
        if magic == [0x50, 0x4b, 0x03, 0x04] {
            try? handle.close()
            let member: ZipMemberStream
            do {
                member = try ZipMemberStream.bugreportText(in: path, limit: Self.bugreportBytes)
            } catch {
                throw AppLogOpenError(message: "\(path): \(error)")
            }
            name = "\(path) member \(member.member)"
            input = .member(member)
        } else {
            try? handle.seek(toOffset: 0)
            name = path
            input = .file(handle)
        }
        (self.path, self.format, bugreport, growing, self.keep) = (path, format, true, false, keep)
        reader = AppLogReader(format: format, bugreport: true)
    }

    private static func open(_ path: String) throws -> FileHandle {
        guard let st = OS.status(path: path) else {
            throw AppLogOpenError(message: "\(path): cannot be read: \(OS.openFailure(path, OS.errno))", usage: true)
        }
        guard st.st_mode & S_IFMT != S_IFDIR, let h = FileHandle(forReadingAtPath: path) else {
            let reason = OS.openFailure(path, st.st_mode & S_IFMT == S_IFDIR ? EISDIR : OS.errno)
            throw AppLogOpenError(message: "\(path): cannot be read: \(reason)", usage: true)
        }
        return h
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
            aheadStart = 0
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
            // The throwing read: the old one traps on a directory or a read error.
            do {
                return try handle.read(upToCount: 65_536).map { Array($0) } ?? []
            } catch {
                throw AppLogOpenError(message: "\(name): cannot be read (\(error.localizedDescription))")
            }
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
