import BTLensAppLog
import BTLensCore
import BTLensDissect
import Foundation

/// One `--app-log` file, read as it is needed: 64 KiB at a time through the line reader, never
/// whole. Its lines come out in file order, with their bytes in hex found and their time read
/// on the log's own clock.
final class AppLogSource {
    struct Line {
        var line: AppLogLine
        /// On the log's clock, as UTC (its zone when it writes one).
        var rawTime: Int64
        var runs: [HexRun]
        /// `--app-log-filter` keeps it: a line it does not keep still aligns and matches, unseen.
        var kept: Bool
    }

    let name: String
    private let handle: FileHandle
    private var reader: AppLogReader
    private var ended = false
    private let keep: (AppLogLine) -> Bool
    /// The year of a line that writes none: the capture's, set at its first event.
    var year = 1970
    var alignment: AppLogAlignment?
    /// The latest record a line of this log matched as sent, and that line: a later line matching
    /// an earlier record is out of order.
    var lastSent: (record: Int, line: Int)?
    /// Lines read but not yet placed (while the offset is found, at most `AppLogMerger.readAhead`),
    /// from `aheadStart`.
    var ahead: [Line] = []
    private var aheadStart = 0

    /// The next line read ahead, or the next from the file.
    func take() throws -> Line? {
        guard aheadStart < ahead.count else {
            ahead = []
            aheadStart = 0
            return try next()
        }
        aheadStart += 1
        return ahead[aheadStart - 1]
    }
    /// Problems the reader found (a line cut at its bound), said when their line is placed.
    var problems: [Int: [Diagnostic]] = [:]

    init(path: String, format: AppLogFormat?, keep: @escaping (AppLogLine) -> Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let h = FileHandle(forReadingAtPath: path)
        else {
            throw AppLogOpenError(message: "\(path): cannot be read (no such file, or a folder)")
        }
        name = path
        handle = h
        reader = try AppLogReader(format: format)
        self.keep = keep
    }

    /// The next kept line, or nil at the end of the file.
    func next() throws -> Line? {
        while true {
            let item: AppLogItem?
            do {
                item = try reader.next()
            } catch {
                throw AppLogOpenError(message: "\(name): \(error)")
            }
            switch item {
            case .line(let l)?:
                let time = l.time.microsecondsSinceEpoch(fallbackYear: year)
                return Line(line: l, rawTime: time, runs: HexBytes.find(in: l.message), kept: keep(l))
            case .problem(let p)?:
                problems[p.line, default: []].append(p.diagnostic)
            case nil:
                if ended { return nil }
                // The throwing read: the old one traps on a directory or a read error.
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: 65_536) ?? Data()
                } catch {
                    throw AppLogOpenError(message: "\(name): cannot be read (\(error.localizedDescription))")
                }
                if chunk.isEmpty {
                    ended = true
                    reader.finish()
                } else {
                    reader.append(chunk)
                }
            }
        }
    }
}

/// A log that cannot be read: said as a usage error.
public struct AppLogOpenError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
