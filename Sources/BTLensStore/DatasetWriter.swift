import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import Foundation

/// `btlens export --dataset DIR`: the store's tables as a dataset DuckDB and Spark read as
/// tables: a folder per table, a JSON lines file per capture (`<table>/<capture id>.jsonl`), each
/// line one row with the columns as keys, and `schema.json` giving every column's type.
public struct DatasetWriter: Sendable {
    public let folder: String
    public let reading: CaptureReading

    public init(folder: String, reading: CaptureReading) {
        self.folder = folder
        self.reading = reading
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes every capture under `paths`; returns what became of each file, as `index` says it.
    public func run(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws
        -> [(path: String, outcome: StoreIndexer.Outcome)]
    {
        guard !folder.isEmpty else { throw Failure(description: "--dataset needs a folder name") }
        for t in StoreTables.all {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder + "/" + t.name, withIntermediateDirectories: true)
            } catch {
                throw Failure(
                    description:
                        "cannot make \(folder)/\(t.name): \(Self.blocking(folder) ?? CaptureWalk.reason(error))")
            }
        }
        try write(Self.schema(), to: folder + "/schema.json")
        let walk = CaptureWalk.files(paths)
        let outcomes = FolderRun.run(walk.files, progress: progress) { path in self.export(path) }
        return walk.problems.map { ($0.path, .unreachable($0.why)) } + Array(zip(walk.files, outcomes))
    }

    func export(_ path: String) -> StoreIndexer.Outcome {
        var found: CaptureReading.Found
        switch reading.look(path) {
        case .success(let f): found = f
        case .failure(let unread): return unread.outcome
        }
        let sink = DatasetSink(folder: folder, capture: found.file.id)
        var facts: CaptureFacts
        var outcome: StoreIndexer.Outcome
        do {
            guard let sha = CaptureFile.sha256(of: path) else {
                throw Failure(description: "cannot read it: \(OS.describe(OS.errno))")
            }
            found.file.sha256 = sha
            facts = try reading.read(found, into: sink)
            outcome = .indexed(frames: facts.frames, diagnostics: facts.diagnostics)
        } catch let e as CaptureOpenError where e.isNotACapture {
            sink.discard()
            return .passedOver("\(e)")
        } catch let e as DatasetSink.WriteFailure {
            sink.discard()
            return .failed(e.description)
        } catch {
            sink.discard()
            facts = reading.failed(found, "\(error)")
            outcome = .failed("\(error)")
        }
        do {
            try sink.write(StoreTables.captures.info, [StoreTables.captures.row(capture: found.file.id, facts)])
            try sink.finish()
        } catch {
            sink.discard()
            return .failed("\(error)")
        }
        return outcome
    }

    /// The file in the way of a folder to be made: `a/b` is a file, not a folder.
    static func blocking(_ folder: String) -> String? {
        var url = URL(fileURLWithPath: folder)
        while url.path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                return isDirectory.boolValue ? nil : "\(url.path) is a file, not a folder"
            }
            url.deleteLastPathComponent()
        }
        return nil
    }

    /// `schema.json`: each table's columns, their SQL types and meanings, for the readers' recipes.
    static func schema() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        for t in StoreTables.all {
            w.key(named: t.name)
            w.beginArray()
            for c in t.columns {
                w.beginObject()
                w.field("name", c.name)
                w.field("type", c.type.rawValue)
                w.field("meaning", c.meaning)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        w.newline()
        return w.bytes
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw Failure(description: "cannot write to \(path): \(CaptureWalk.reason(error))")
        }
    }
}

/// One capture's files: written under temporary names, renamed into place once all are complete,
/// so a reader never sees half a capture.
final class DatasetSink: RowSink {
    struct WriteFailure: Error, CustomStringConvertible {
        let description: String
    }

    private let folder: String
    private let capture: Int64
    private var open: [String: (fd: Int32, sink: OutputSink)] = [:]

    init(folder: String, capture: Int64) {
        self.folder = folder
        self.capture = capture
    }

    private func final(_ table: String) -> String { "\(folder)/\(table)/\(capture).jsonl" }
    private func temporary(_ table: String) -> String { "\(folder)/\(table)/.\(capture).jsonl.part" }

    func write(_ table: TableInfo, _ rows: [[Cell]]) throws {
        let out = try file(table.name)
        for row in rows {
            var w = JSONWriter()
            w.beginObject()
            for (c, cell) in zip(table.columns, row) {
                w.key(named: c.name)
                cell.write(&w)
            }
            w.endObject()
            w.newline()
            w.withBytes { out.write($0) }
        }
        if let e = out.failure {
            throw WriteFailure(description: "cannot write to \(temporary(table.name)): \(OS.describe(e))")
        }
    }

    private func file(_ table: String) throws -> OutputSink {
        if let f = open[table] { return f.sink }
        let fd = OS.open(temporary(table), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw WriteFailure(description: "cannot make \(temporary(table)): \(OS.describe(OS.errno))")
        }
        let sink = OutputSink(fd: fd)
        open[table] = (fd, sink)
        return sink
    }

    /// Every table gets its file, empty when the capture has no rows of it.
    func finish() throws {
        for t in StoreTables.all { _ = try file(t.name) }
        for (table, f) in open {
            f.sink.flush()
            let failed = f.sink.failure
            OS.close(f.fd)
            if let failed {
                throw WriteFailure(description: "cannot write to \(temporary(table)): \(OS.describe(failed))")
            }
        }
        for table in open.keys where OS.rename(temporary(table), final(table)) != 0 {
            throw WriteFailure(description: "cannot rename \(temporary(table)): \(OS.describe(OS.errno))")
        }
        open = [:]
    }

    func discard() {
        for (table, f) in open {
            OS.close(f.fd)
            OS.unlink(temporary(table))
        }
        open = [:]
    }
}
