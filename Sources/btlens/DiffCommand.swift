import ArgumentParser
import BTLensCapture
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensReport
import Foundation

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two captures of one app and accessory (before and after an update): what changed.",
        discussion:
            "Commands (counts and latency), diagnostics (counts, first records), connections (parameters, MTU, PHY, encryption, subscriptions, how each ended), GATT databases (services, characteristics, descriptors), identity (iAP2 identification, Device Information strings, advertised names) and the first place where the order of framed messages differs. Names, pairing and latency need the definitions (./Dissectors or --dissectors): without them commands are compared by number. Each capture is summarised as it is read, never held. --app-log merges each side's app logs as on the timeline (two files: the before's, then the after's; or before:FILE and after:FILE), so their app.* diagnostics are compared too. With --fail-on-regression the exit status is 3 when the after side has a new error or warning id, more unanswered requests, or a latency rise past the spread."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, md, html }

    @Argument(help: "The capture before, or - for standard input.")
    var before: String

    @Argument(help: "The capture after, or - for standard input (not both).")
    var after: String

    @OptionGroup var decoding: DecodingOptions
    var decodeAs: [DecodeAs] { decoding.decodeAs }
    var definitions: DefinitionOptions { decoding.definitions }
    var limitOptions: LimitOptions { decoding.limitOptions }
    var keyOptions: KeyOptions { decoding.keyOptions }

    @OptionGroup var filterOption: FilterOption

    @Option(
        help:
            "Output format: text, json, md (Markdown, for a ticket) or html (a page like the report's); default: from -o's extension, else text."
    )
    var format: Format?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write to this file instead of stdout (- is stdout).", valueName: "file"))
    var output: String?

    @OptionGroup var appLog: AppLogOptions

    @Flag(help: "Exit with status 3 when the after side regressed (for CI); each cause is said on stderr.")
    var failOnRegression = false

    func run() throws {
        if before == standardInputPath && after == standardInputPath {
            throw UsageFailure(message: "diff - -: standard input holds one capture; give the other as a file")
        }
        let dissectors = try CaptureInput.dissectors(definitions, decodeAs: decodeAs)
        var reading = Configuration(
            decodeAs: decodeAs, dissectors: dissectors, lowerLayers: false, detail: .full,
            limits: try limitOptions.limits())
        // Device Information strings come from read responses.
        reading.attEvents = true
        reading.linkLayerKeys = try keyOptions.linkLayerKeys()
        let configuration = reading
        let expression = filterOption.expression
        // Each side's logs, opened (and any that cannot be read said) before either is read.
        let (logsBefore, logsAfter) = try appLog.sides()
        _ = try appLog.merger(only: logsBefore, capture: before)
        _ = try appLog.merger(only: logsAfter, capture: after)
        let logs = appLog
        // The two captures are read side by side, each on its own core.
        let results = FolderRun.run([(before, logsBefore), (after, logsAfter)]) { (file, files) in
            Result {
                let merger = try logs.merger(only: files, capture: file)
                merger?.rereads(file, archiveBytes: configuration.limits.archiveBytes, configuration)
                return try Self.summary(
                    file, configuration, filter: expression.flatMap { try? DisplayFilter($0) }, merger: merger)
            }
        }
        guard results.count == 2 else { throw InputFailure(message: "the captures could not be read") }
        let diff = CaptureDiff(before: try results[0].get(), after: try results[1].get())
        let text: String
        switch format ?? Self.format(of: output) ?? .text {
        case .text: text = diff.text
        case .json: text = diff.json
        case .md: text = diff.markdown
        case .html: text = diff.html(generator: "btlens \(Btlens.version) diff")
        }
        if let output, output != "-" {
            _ = try ReportCommand.write(text, to: output)
        } else {
            print(text, terminator: "")
        }
        let causes = diff.regressions
        if failOnRegression, !causes.isEmpty {
            throw DiagnosticsFound(message: "--fail-on-regression: " + causes.joined(separator: "; "))
        }
    }

    /// The format a file name asks for: `.json`, `.md`, `.html`/`.htm`, `.txt` or none for text;
    /// nil for another extension.
    static func format(of path: String?) -> Format? {
        let ext = path.map(Self.fileExtension) ?? ""
        switch ext {
        case "json": return .json
        case "md", "markdown": return .md
        case "html", "htm": return .html
        case "txt", "text", "": return .text
        default: return nil
        }
    }

    static func fileExtension(_ path: String) -> String { URL(fileURLWithPath: path).pathExtension.lowercased() }

    func validate() throws {
        guard format == nil, let output, Self.format(of: output) == nil else { return }
        throw ValidationError(
            "cannot tell the format from \(output): use .txt, .json, .md or .html, or say --format")
    }

    /// One capture read through to its summary; nothing of it is held.
    static func summary(
        _ file: String, _ configuration: Configuration, filter: DisplayFilter?, merger: AppLogMerger? = nil
    ) throws -> CaptureSummary {
        var reader = try openCapture(file, member: nil, archiveBytes: configuration.limits.archiveBytes)
        let stats = StatsCollector(file: file, info: reader.info)
        stats.definitions = configuration.dissectors.sources
        // Counted through `count` and `account` below; set so that the summary says it.
        stats.filter = filter.map { f in (f.expression, f.matches) }
        let recorder = SummaryRecorder()
        // The app's logs merge in as on the timeline: their diagnostics are compared like any.
        func count(_ e: Event) {
            if let filter, !filter.matches(e) { return stats.account(e) }
            stats.count(e)
            recorder.event(e)
        }
        var logFailure: (any Error)?
        let analyzer = try Pipeline.runReadingAhead(
            &reader, configuration, onRecord: stats.record,
            onProblem: {
                reportProblem(file, $0)
                stats.problem($0)
            },
            onEvent: { e in
                guard let merger, logFailure == nil else { return count(e) }
                do { try merger.event(e, count) } catch { logFailure = error }
            })
        if let merger, logFailure == nil {
            do { try merger.finish(count) } catch { logFailure = error }
        }
        if let logFailure { throw AppLogOptions.failure(logFailure) }
        stats.finish(bytesRead: reader.bytesRead)
        return CaptureSummary(
            stats: stats, recorder: recorder, connections: analyzer.connectionSummaries,
            advertisers: analyzer.advertisers, gatt: analyzer.gatt)
    }
}
