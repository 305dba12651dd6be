import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensReport
import Foundation

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Count what a capture holds: records by kind, connections, ATT PDUs, A5 frames, diagnostics, undecoded bytes."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @OptionGroup var input: CaptureInput

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @OptionGroup var filterOption: FilterOption

    @OptionGroup var appLog: AppLogOptions

    func run() throws {
        let dissectors = try input.dissectors()
        let merger = try appLog.merger(capture: input.file)
        let (json, member) = (format == .json, input.member)
        // Stats counts PDUs and frames: the analyzer counts those it need not send, and keeps no value bytes.
        // A filter that may select them needs them as events, to test each (ATT PDUs only when it may
        // select one of them).
        let filter = filterOption.filter()
        let frames = filter.map { [.a5, .message].contains(where: $0.canSelect) } ?? false
        let att = filter?.canSelect(.att) ?? false
        // App logs align on the values of every ATT PDU, frame and channel: all come as events.
        let logs = merger != nil
        var counting = try input.configuration(
            dissectors, lowerLayers: false, detail: frames || att || logs ? .full : .counts)
        counting.attEvents = att || logs
        counting.keepsValues = logs || (filter?.readsValues ?? true)
        let configuration = counting
        merger?.rereads(
            input.file, member: member, archiveBytes: try input.limitOptions.limits().archiveBytes, configuration)
        guard let files = try FolderRun.capturesIn(input.file) else {
            let (output, worst) = try Self.stats(
                input.file, member: member, configuration, json: json, filter: filter, merger: merger)
            print(output, terminator: "")
            return try input.check([(input.file, worst)])
        }
        if logs { throw ValidationError("--app-log belongs to one capture: '\(input.file)' is a folder") }
        let expression = filterOption.expression
        // A folder: each capture on its own core; JSON as one array, text as sections. A file that
        // cannot be read is said in its place and the rest go on.
        // A file that is no capture (a README, a log) is passed over with a note.
        let results = FolderRun.run(files, progress: Progress.bar) {
            file -> (String?, Severity?, failed: Bool, skipped: InputFailure?) in
            do {
                let (output, worst) = try Self.stats(
                    file, member: member, configuration, json: json,
                    filter: expression.flatMap { try? DisplayFilter($0) }, inFolder: true)
                return (output, worst, false, nil)
            } catch let failure as InputFailure where failure.notACapture {
                return (nil, nil, false, failure)
            } catch {
                let message = (error as? InputFailure)?.message ?? "\(error)"
                FileHandleStderr.write("btlens: \(message)\n")
                guard json else { return ("File:        \(file)\nError:       \(message)\n", nil, true, nil) }
                var w = JSONWriter()
                w.beginObject()
                w.field("file", file)
                w.field("error", message)
                w.endObject()
                return (String(decoding: w.bytes, as: UTF8.self), nil, true, nil)
            }
        }
        for case let skipped? in results.map(\.skipped) { FolderRun.skip(skipped) }
        let outputs = results.compactMap(\.0)
        guard !outputs.isEmpty else { throw InputFailure(message: "\(input.file): the folder holds no captures") }
        print(
            json
                ? "[" + outputs.map { $0.trimmingCharacters(in: .newlines) }.joined(separator: ",\n") + "]"
                : outputs.joined(separator: "\n"))
        try FolderRun.unreadable(zip(files, results).filter(\.1.failed).map(\.0), of: files.count)
        try input.check(zip(files, results).map { ($0, $1.1) })
    }

    /// One capture's stats as text or JSON, and its worst diagnostic.
    static func stats(
        _ file: String, member: String?, _ configuration: Configuration, json: Bool, filter: DisplayFilter? = nil,
        merger: AppLogMerger? = nil, inFolder: Bool = false
    ) throws -> (String, Severity?) {
        var reader = try openCapture(
            file, member: member, inFolder: inFolder,
            archiveBytes: configuration.limits.archiveBytes)
        let stats = StatsCollector(file: file, info: reader.info)
        stats.definitions = configuration.dissectors.sources
        stats.filter = filter.map { f in (f.expression, f.matches) }
        // The app's logs merge in with the events, as on the timeline.
        var logFailure: (any Error)?
        let onEvent: (Event) -> Void
        if let merger {
            onEvent = { e in
                guard logFailure == nil else { return stats.event(e) }
                do { try merger.event(e, stats.event) } catch { logFailure = error }
            }
        } else {
            onEvent = stats.event
        }
        let analyzer = try Pipeline.runReadingAhead(
            &reader, configuration, onRecord: stats.record,
            onProblem: {
                reportProblem(file, $0)
                stats.problem($0)
            },
            onEvent: onEvent)
        if let merger, logFailure == nil {
            do { try merger.finish(stats.event) } catch { logFailure = error }
        }
        if let logFailure { throw AppLogOptions.failure(logFailure) }
        // With a filter or logs, every event was counted; without, what the analyzer counted instead.
        if filter == nil && merger == nil { stats.add(analyzer.tally) }
        stats.finish(bytesRead: reader.bytesRead)
        stats.connectionsDropped = analyzer.connections.historyDropped
        let (connections, advertisers) = (analyzer.connectionSummaries, analyzer.advertisers)
        return (
            json
                ? stats.json(connections: connections, advertisers: advertisers)
                : stats.text(connections: connections, advertisers: advertisers),
            // With a filter, --fail-on judges the diagnostics it selects: those counted.
            filter == nil
                ? [analyzer.worstSeverity, merger?.worstSeverity].compactMap { $0 }.max()
                : stats.diagnostics.values.map(\.0).max()
        )
    }
}
