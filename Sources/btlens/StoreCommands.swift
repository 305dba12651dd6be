import ArgumentParser
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensStore
import Foundation

/// How `index` and `export --dataset` read captures: as `stats` does, with the same options.
struct StoreInput: ParsableArguments {
    @Argument(help: "Capture files and folders (read recursively; bugreport .zip files too).")
    var paths: [String]

    @OptionGroup var decoding: DecodingOptions

    @Option(
        help: ArgumentHelp(
            "Merge each capture's app log as --app-log does: the file beside it named as the capture with its extension replaced by SUFFIX (run1.btsnoop, run1.app.log: .app.log), or 'bugreport' for the logcat in a bugreport .zip. Its findings are diagnostics. Repeatable.",
            valueName: "suffix"))
    var appLogBeside: [String] = []

    @Option(
        help:
            "With --app-log-beside: the app's tag, or a regular expression a log line must hold (as --app-log-filter).")
    var appLogFilter: String?

    @Option(
        help: ArgumentHelp(
            "With --app-log-beside: the logs' pattern, for a format btlens does not know (as --app-log-format).",
            valueName: "pattern"))
    var appLogFormat: String?

    @Option(help: ArgumentHelp("The layout of --app-log-format's time group (as for timeline).", valueName: "layout"))
    var appLogTimeFormat: String?

    /// While the arguments are parsed: a refused option shows the subcommand's usage.
    func validate() throws { _ = try appLogs() }

    /// The logs' options, checked before any capture is read: a refused one is a usage error.
    func appLogs() throws -> AppLogPairing {
        if appLogBeside.isEmpty, appLogFilter != nil || appLogFormat != nil || appLogTimeFormat != nil {
            throw ValidationError("--app-log-filter, --app-log-format and --app-log-time-format need --app-log-beside")
        }
        if let empty = appLogBeside.first(where: { $0.isEmpty || $0 == "." }) {
            throw ValidationError("--app-log-beside '\(empty)': give the end of a log's name, such as .app.log")
        }
        if let twice = Dictionary(grouping: appLogBeside, by: { $0 }).first(where: { $0.value.count > 1 }) {
            throw ValidationError("--app-log-beside \(twice.key): the same suffix given twice")
        }
        let format = try AppLogOptions.format(appLogFormat, timeFormat: appLogTimeFormat)
        // The filter compiled once here, so that a bad one is said before any capture is read.
        do { _ = try AppLogMerger(.init(files: [], filter: appLogFilter)) } catch { throw AppLogOptions.failure(error) }
        return AppLogPairing(suffixes: appLogBeside, filter: appLogFilter, format: format)
    }

    /// Every event but the lower layers', ATT PDUs among them (the Device Information strings).
    func reading() throws -> CaptureReading {
        let decodeAs = decoding.decodeAs
        let dissectors = try CaptureInput.dissectors(decoding.definitions, decodeAs: decodeAs)
        let limits = try decoding.limitOptions.limits()
        var c = Configuration(
            decodeAs: decodeAs, dissectors: dissectors, lowerLayers: false, detail: .full, limits: limits)
        c.linkLayerKeys = try decoding.keyOptions.linkLayerKeys()
        let fingerprint = StoreFingerprint.make(
            version: Btlens.version, sources: dissectors.sources,
            options: decodeAs.map { "\($0)" } + [
                "\(c.linkLayerKeys)", "\(limits)", appLogFilter ?? "", appLogFormat ?? "", appLogTimeFormat ?? "",
            ])
        return CaptureReading(
            configuration: c, archiveLimit: Int64(limits.archiveBytes), fingerprint: fingerprint,
            appLogs: try appLogs())
    }

    /// Says what could not be read, and throws when something could not (after the work is done).
    static func report(_ files: [(path: String, outcome: StoreIndexer.Outcome)]) throws {
        var failed: [String] = []
        for (path, outcome) in files {
            switch outcome {
            case .failed(let why), .unreachable(let why):
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

    @OptionGroup var input: StoreInput

    func run() throws {
        let reading = try input.reading()
        let store: Store
        do { store = try Store(path: db) } catch { throw InputFailure(message: "\(error)") }
        let indexer = StoreIndexer(store: store, reading: reading)
        let summary: StoreIndexer.Summary
        do { summary = try indexer.run(input.paths, progress: Progress.bar) } catch {
            throw InputFailure(message: "\(error)")
        }
        let indexed = summary.files.compactMap { f -> (Int, Int)? in
            if case .indexed(let frames, let diagnostics) = f.outcome { return (frames, diagnostics) }
            return nil
        }
        let failed = summary.count {
            switch $0 {
            case .failed, .unreachable: return true
            default: return false
            }
        }
        let rate = Double(summary.files.count) / max(summary.seconds, 0.001)
        print(
            "\(db): \(indexed.count) indexed (\(indexed.map(\.0).reduce(0, +)) frames, \(indexed.map(\.1).reduce(0, +)) diagnostics), "
                + "\(summary.count { $0 == .unchanged }) unchanged, \(failed) unreadable, \(summary.pruned) pruned; "
                + "\(summary.files.count) files in \(String(format: "%.2f", summary.seconds)) s (\(String(format: "%.1f", rate)) files/s)"
        )
        try StoreInput.report(summary.files)
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
            "Read captures into the store's tables, written as a dataset DuckDB and Spark read: a folder per table, a JSON lines file per capture.",
        discussion: "The layout and the recipes: docs/index.md.")

    @Option(help: ArgumentHelp("The folder to write (made when missing).", valueName: "dir"))
    var dataset: String

    @OptionGroup var input: StoreInput

    func run() throws {
        let writer = DatasetWriter(folder: dataset, reading: try input.reading())
        let start = Date()
        let files: [(path: String, outcome: StoreIndexer.Outcome)]
        do { files = try writer.run(input.paths, progress: Progress.bar) } catch {
            throw InputFailure(message: "\(error)")
        }
        let written = files.filter {
            switch $0.outcome {
            case .indexed, .failed: return true
            default: return false
            }
        }
        print(
            "\(dataset): \(written.count) capture\(written.count == 1 ? "" : "s") written in \(String(format: "%.2f", Date().timeIntervalSince(start))) s"
        )
        try StoreInput.report(files)
    }
}
