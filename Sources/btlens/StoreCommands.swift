import ArgumentParser
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensStore
import Foundation

/// How `index` and `export --dataset` read captures: as `stats` does, with the same options.
struct StoreReading: ParsableArguments {
    @Argument(help: "Capture files and folders (read recursively; bugreport .zip files too).")
    var paths: [String]

    @Option(help: "Decode a channel whose setup is not in the capture (as timeline's --decode-as). Repeatable.")
    var decodeAs: [DecodeAs] = []

    @OptionGroup var definitions: DefinitionOptions

    @OptionGroup var limitOptions: LimitOptions

    @OptionGroup var keyOptions: KeyOptions

    @Option(
        help: ArgumentHelp(
            "Merge each capture's app log as --app-log does: the file beside it named as the capture with its extension replaced by SUFFIX (run1.btsnoop, run1.app.log: .app.log), or 'bugreport' for the logcat in a bugreport .zip. Its findings are diagnostics. Repeatable.",
            valueName: "suffix"))
    var appLogBeside: [String] = []

    @Option(
        help:
            "With --app-log-beside: the app's tag, or a regular expression a log line must hold (as --app-log-filter).")
    var appLogFilter: String?

    var appLogs: AppLogPairing { AppLogPairing(suffixes: appLogBeside, filter: appLogFilter) }

    /// Every event but the lower layers', ATT PDUs among them (the Device Information strings).
    func configuration() throws -> (Configuration, fingerprint: String, archiveLimit: Int64) {
        let dissectors = try CaptureInput.dissectors(definitions, decodeAs: decodeAs)
        let limits = try limitOptions.limits()
        var c = Configuration(
            decodeAs: decodeAs, dissectors: dissectors, lowerLayers: false, detail: .full, limits: limits)
        c.linkLayerKeys = try keyOptions.linkLayerKeys()
        let fingerprint = StoreFingerprint.make(
            version: Btlens.version, sources: dissectors.sources,
            options: decodeAs.map { "\($0)" } + ["\(c.linkLayerKeys)", "\(limits)", appLogFilter ?? ""])
        return (c, fingerprint, Int64(limits.archiveBytes))
    }

    /// Says what could not be read, and throws when something could not (after the work is done).
    static func report(_ files: [(path: String, outcome: StoreIndexer.Outcome)]) throws {
        var failed: [String] = []
        for (path, outcome) in files {
            switch outcome {
            case .failed(let why):
                FileHandleStderr.write("btlens: \(path): \(why)\n")
                failed.append(path)
            case .passedOver(let why): FileHandleStderr.write("btlens: note: skipped, not a capture: \(path): \(why)\n")
            default: break
            }
        }
        try FolderRun.unreadable(failed, of: files.count)
    }
}

struct Index: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract:
            "Read captures into a SQLite store for btlens query: unchanged files are passed over, removed ones pruned.",
        discussion: "The tables, and the SQL of common questions: docs/index.md.")

    @Option(help: ArgumentHelp("The SQLite file (made when missing).", valueName: "file"))
    var db: String

    @OptionGroup var reading: StoreReading

    func run() throws {
        let (configuration, fingerprint, archiveLimit) = try reading.configuration()
        let store: Store
        do { store = try Store(path: db) } catch { throw InputFailure(message: "\(error)") }
        let indexer = StoreIndexer(
            store: store, configuration: configuration, fingerprint: fingerprint, archiveLimit: archiveLimit,
            appLogs: reading.appLogs)
        let summary: StoreIndexer.Summary
        do { summary = try indexer.run(reading.paths, progress: Progress.bar) } catch {
            throw InputFailure(message: "\(error)")
        }
        let indexed = summary.files.compactMap { f -> (Int, Int)? in
            if case .indexed(let frames, let diagnostics) = f.outcome { return (frames, diagnostics) }
            return nil
        }
        let failed = summary.count { if case .failed = $0 { return true } else { return false } }
        let rate = Double(summary.files.count) / max(summary.seconds, 0.001)
        print(
            "\(db): \(indexed.count) indexed (\(indexed.map(\.0).reduce(0, +)) frames, \(indexed.map(\.1).reduce(0, +)) diagnostics), "
                + "\(summary.count { $0 == .unchanged }) unchanged, \(failed) unreadable, \(summary.pruned) pruned; "
                + "\(summary.files.count) files in \(String(format: "%.2f", summary.seconds)) s (\(String(format: "%.1f", rate)) files/s)"
        )
        try StoreReading.report(summary.files)
    }
}

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one SQL statement over a store btlens index made (read only).",
        discussion: "The tables, and the SQL of common questions: docs/index.md.")

    @Option(help: ArgumentHelp("The SQLite file btlens index wrote.", valueName: "file"))
    var db: String

    @Argument(
        help:
            "One SQL statement, e.g. \"SELECT id, count(*) FROM diagnostics GROUP BY id\"; - reads it from standard input (a statement that begins with -- comes after a lone --)."
    )
    var sql: String

    @Option(help: "Output format: table, json or csv.")
    var format: StoreQuery.Format = .table

    func run() throws {
        let sink = OutputSink(fd: 1, onFailure: { StandardOutput.failed($0) })
        let statement = sql == "-" ? try Self.standardInput() : sql
        do { try StoreQuery.run(path: db, sql: statement, format: format, to: sink) } catch let f as Store.Failure {
            throw InputFailure(message: f.description)
        }
        sink.flush()
    }

    /// The statement from standard input: at most 1 MiB of it.
    static func standardInput() throws -> String {
        let limit = 1 << 20
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { OS.read(0, $0.baseAddress, $0.count) }
            if n < 0 && OS.errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        guard bytes.count <= limit else { throw ValidationError("the SQL on standard input is longer than 1 MiB") }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension StoreQuery.Format: ExpressibleByArgument {}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Write the store's tables as a dataset DuckDB and Spark read: a folder per table, a JSON lines file per capture.",
        discussion: "The layout and the recipes: docs/index.md.")

    @Option(help: ArgumentHelp("The folder to write (made when missing).", valueName: "dir"))
    var dataset: String

    @OptionGroup var reading: StoreReading

    func run() throws {
        let (configuration, fingerprint, archiveLimit) = try reading.configuration()
        let writer = DatasetWriter(
            folder: dataset, configuration: configuration, archiveLimit: archiveLimit, fingerprint: fingerprint,
            appLogs: reading.appLogs)
        let start = Date()
        let files: [(path: String, outcome: StoreIndexer.Outcome)]
        do { files = try writer.run(reading.paths, progress: Progress.bar) } catch {
            throw InputFailure(message: "\(error)")
        }
        let written = files.filter { if case .passedOver = $0.outcome { return false } else { return true } }
        print(
            "\(dataset): \(written.count) captures written in \(String(format: "%.2f", Date().timeIntervalSince(start))) s"
        )
        try StoreReading.report(files)
    }
}
