import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensReport

struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print the annotated timeline of a capture.",
        discussion: """
            One line per event: #record (Wireshark's frame number), seconds since the first record, direction (< phone to controller, > controller to phone, = note, ! problem in the file, ~ a line of --app-log, numbered L<line>), connection handle, layer, summary. Diagnostics are marked !NOTE, !WARN, !ERRO in the layer column. --format jsonl prints one JSON object per event (the contract is docs/jsonl.md).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, jsonl }

    @OptionGroup var input: CaptureInput

    @Option(help: "Output format: text or jsonl.")
    var format: Format = .text

    @Flag(name: .shortAndLong, help: "Also show the lower layers (HCI framing, ACL, L2CAP), indented.")
    var verbose = false

    @Option(help: "Colour: auto (only on a terminal), always, never.")
    var color: ColorChoice = .auto

    @OptionGroup var throttleOptions: ThrottleOptions

    @OptionGroup var filterOption: FilterOption

    @OptionGroup var appLog: AppLogOptions

    @Flag(
        help:
            "Begin with a summary: each connection's life (parameters, encryption, MTU, discovery, subscriptions, how it ended) and the findings with their records. Reads the capture twice."
    )
    var summary = false

    func run() throws {
        try refuseFolder()
        let dissectors = try input.dissectors()
        let merger = try appLog.merger(capture: input.file)
        var reader = try input.open()
        let sink = OutputSink(fd: 1, onFailure: { StandardOutput.failed($0) })
        if summary && format == .text { try writeSummary(dissectors, to: sink) }
        // Reading on this thread, decoding on a second, rendering and writing on a third.
        let (render, begin) = renderer(merger, into: sink)
        // A flood of one diagnostic is shown in part, and counted: stats and --summary read it all.
        // It counts what the filter selects.
        let throttle = throttleOptions.throttle(try input.limitOptions.limits())
        let filter = filterOption.filter()
        let (selected, selectedWorst) = Self.selecting(filter, begin: begin, throttle: throttle, render: render)
        var show = selected
        // The app's logs merge in on the rendering thread, their lines in time order with the events.
        var logFailure: (any Error)?
        let display = show
        if let merger {
            show = { e in
                guard logFailure == nil else { return display(e) }
                do { try merger.event(e, display) } catch { logFailure = error }
            }
        }
        let origin = Self.fromTrafficOrigin(show, begin: begin, filter: filter)
        let finishOrigin = origin.finish
        show = origin.show
        // Said first, at the first event's record and time: what names the frames depends on the folder.
        var loaded: DefinitionSources? = dissectors.sources
        let configuration = try decoding(dissectors, filter: filter, merger: merger)
        merger?.rereads(
            input.file, member: input.member, archiveBytes: try input.limitOptions.limits().archiveBytes, configuration)
        let analyzer: Analyzer
        do {
            analyzer = try Pipeline.runRelayed(
                &reader, configuration,
                // Events in flight are weighed by the records they come from too: an
                // event may keep a slice of its record's read chunk alive.
                onRecord: { r, relay in relay.weigh(r.payload.count) },
                onProblem: report,
                onEvent: { (e: consuming Event, relay: EventRelay) in
                    if let note = loaded.take() { relay.send(note.note(record: e.record, timestamp: e.timestamp)) }
                    let held = e.heldBytes
                    relay.send(e, bytes: held)
                },
                consume: show)
        } catch {
            // What was decoded before the read failed is still printed.
            finishOrigin()
            throttle.finish(render)
            sink.flush()
            throw error
        }
        finishOrigin()
        if let merger, logFailure == nil {
            do { try merger.finish(display) } catch { logFailure = error }
        }
        throttle.finish(render)
        // The rendering thread is done: a capture without events gets the note here.
        if let note = loaded.take() {
            show(note.note(record: 0, timestamp: Timestamp(microseconds: 0)))
            finishOrigin()
        }
        sink.flush()
        if let logFailure { throw AppLogOptions.failure(logFailure) }
        // The logs' own diagnostics count for --fail-on too.
        let worst =
            filter == nil ? [analyzer.worstSeverity, merger?.worstSeverity].compactMap { $0 }.max() : selectedWorst()
        try input.check([(input.file, worst)])
    }

    /// A timeline is of one capture: a folder cannot be read as one, as `convert` and `diff` say (exit status 1).
    private func refuseFolder() throws {
        if FolderRun.files(input.file) != nil {
            throw InputFailure(
                message:
                    "cannot open \(input.file): a folder, not a file (a timeline is of one capture; stats and report read each capture of a folder)"
            )
        }
    }

    /// `--summary`: a first pass over the capture, whose connections and findings head the timeline.
    private func writeSummary(_ dissectors: DissectorTable, to sink: OutputSink) throws {
        try refuseStandardInput(input.file, because: "--summary")
        var first = try input.open()
        let s = TimelineSummary()
        let pass = try Pipeline.run(
            &first, input.configuration(dissectors, lowerLayers: false, detail: .counts),
            onEvent: s.event)
        var text =
            "Dissectors:  \(TerminalText.safe(dissectors.sources.summary))\n"
            + (filterOption.expression.map {
                "Filter:      \(TerminalText.safe($0)) (the timeline below; not this summary)\n"
            } ?? "")
            + s.text(connections: pass.connectionSummaries, advertisers: pass.advertisers)
        if let width = terminalWidth(verbose: verbose) {
            // Cut at the end of each line, so the columns before stay aligned.
            text = text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { TerminalText.fit(String($0), columns: width) }.joined(separator: "\n")
        }
        sink.write(text)
    }

    /// The renderer of `--format`, and what to tell it of the traffic's first time.
    private func renderer(
        _ merger: AppLogMerger?, into sink: OutputSink
    ) -> (render: (Event) -> Void, begin: (Timestamp) -> Void) {
        // With a filter, seconds count from the traffic's first event, shown or not: as without one.
        switch format {
        case .text:
            var renderer = TextRenderer(verbose: verbose, color: color.enabled)
            renderer.width = terminalWidth(verbose: verbose)
            renderer.logNames = merger?.names ?? [:]
            return ({ e in renderer.render(e, into: sink) }, { t in if renderer.origin == nil { renderer.origin = t } })
        case .jsonl:
            let renderer = JSONLRenderer(verbose: verbose)
            return ({ e in renderer.render(e, into: sink) }, { _ in })
        }
    }

    /// The events a filter selects, throttled, and the worst severity among the diagnostics it
    /// selected: with a filter, --fail-on judges those (the logs' among them).
    private static func selecting(
        _ filter: DisplayFilter?, begin: @escaping (Timestamp) -> Void, throttle: DiagnosticThrottle,
        render: @escaping (Event) -> Void
    ) -> (show: (Event) -> Void, worst: () -> Severity?) {
        guard let filter else { return ({ e in throttle.pass(e, to: render) }, { nil }) }
        var selectedWorst: Severity?
        let show = { (e: Event) in
            begin(e.timestamp)
            guard filter.matches(e) else { return }
            if case .diagnostic(let d) = e.body, selectedWorst.map({ d.severity > $0 }) ?? true {
                selectedWorst = d.severity
            }
            throttle.pass(e, to: render)
        }
        return (show, { selectedWorst })
    }

    /// Seconds (and reltime) count from the traffic's first event: notes before it (an iPhone's
    /// header notes, days older) wait for it and keep their own times.
    private static func fromTrafficOrigin(
        _ decoded: @escaping (Event) -> Void, begin: @escaping (Timestamp) -> Void, filter: DisplayFilter?
    ) -> (show: (Event) -> Void, finish: () -> Void) {
        let origin = TrafficOrigin()
        let start = { (t: Timestamp) in
            begin(t)
            filter?.begin(at: t)
        }
        return ({ e in origin.pass(e, begin: start, to: decoded) }, { origin.finish(begin: start, to: decoded) })
    }

    /// The analyzer's settings for the timeline. ATT PDUs a filter cannot select are not made into
    /// events (decoding is the longest stage). Not for text, whose seconds count from the first
    /// event, nor for reltime, nor when the first line (a note at the first event) may be selected.
    /// App logs align on ATT values, shown or not.
    private func decoding(
        _ dissectors: DissectorTable, filter: DisplayFilter?, merger: AppLogMerger?
    ) throws -> Configuration {
        var configuration = try input.configuration(dissectors, lowerLayers: verbose)
        if format == .jsonl, let filter, !filter.canSelect(.att), !filter.canSelect(.note), !filter.readsReltime,
            merger == nil
        {
            configuration.attEvents = false
        }
        return configuration
    }

    private func report(_ p: CaptureProblem) { reportProblem(input.file, p) }
}
