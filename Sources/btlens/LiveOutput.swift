import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensReport
import BTLensServe

/// What `follow` prints: each event flushed as it comes, notes about the input on stderr, and on a
/// terminal a one-line status under the timeline, cleared before each line and drawn again.
final class LiveOutput {
    private let sink = OutputSink(fd: 1, flushEachWrite: true, onFailure: { StandardOutput.failed($0) })
    private var text: TextRenderer?
    private let jsonl: JSONLRenderer?
    /// A flood of one diagnostic is shown in part; its lines come when its second of capture time is over.
    private let throttle: DiagnosticThrottle
    /// `--filter`: the events shown; the status line and the summary count every one.
    private var filter: DisplayFilter?
    /// Why the input started over, said in the timeline at the new source's first event.
    private var restarted: String?
    /// Seconds count from each source's traffic: header notes before it wait for it.
    private var origin = TrafficOrigin()
    private var matched = 0
    private let status: Bool
    private var records = 0, frames = 0, diagnostics = 0, errors = 0, partial = 0
    private var shown = false
    private let started = LiveOutput.now()
    private var drawn = 0.0

    init(
        format: Timeline.Format, verbose: Bool, color: Bool, status: Bool, throttle: DiagnosticThrottle,
        filter: DisplayFilter? = nil, logNames: [String: String] = [:]
    ) {
        self.throttle = throttle
        self.filter = filter
        if format == .jsonl {
            jsonl = JSONLRenderer(verbose: verbose)
        } else {
            text = TextRenderer(verbose: verbose, color: color)
            text?.width = terminalWidth(verbose: verbose)
            text?.logNames = logNames
            jsonl = nil
        }
        self.status = status
    }

    /// `--serve`: the page's publisher, handed every record and event as they come.
    var page: LivePublisher?

    func record(_ r: CaptureRecord) {
        page?.record(r)
        records += 1
        drawStatus(force: false)
    }

    /// A new source (a file truncated or replaced, a connection made again): its records and times
    /// start again, so the timeline says so and counts its seconds from it.
    func restart(_ why: String) {
        page?.restart(why)
        origin.finish(begin: begin, to: take)
        throttle.restart { show($0) }
        text?.origin = nil
        filter = filter?.fresh()
        origin = TrafficOrigin()
        restarted = why
    }

    func event(_ e: Event) {
        page?.event(e)
        if let why = restarted {
            restarted = nil
            origin.pass(.followRestart(why, at: e), begin: begin, to: take)
        }
        origin.pass(e, begin: begin, to: take)
    }

    private func begin(_ t: Timestamp) {
        text?.origin = t
        filter?.begin(at: t)
    }

    private func take(_ e: Event) {
        switch e.body {
        case .frame: frames += 1
        // Counted as stats counts them: a condition's consequences said once (--verbose detail) are not counted again.
        case .diagnostic(let d) where e.isTop:
            diagnostics += 1
            if d.severity == .error { errors += 1 }
            if followStop.isSet
                && ["a5.truncated", "l2cap.incomplete", "iap2.truncated", "a5.fragment.missing"].contains(d.id)
            {
                partial += 1
            }
        default: break
        }
        if let filter {
            // Seconds count from the first event, shown or not.
            if text?.origin == nil { text?.origin = e.timestamp }
            guard filter.matches(e) else { return }
            if e.isTop { matched += 1 }
        }
        throttle.pass(e) { show($0) }
    }

    private func show(_ e: Event) {
        let bytes: [UInt8]?
        if let jsonl { bytes = jsonl.render(e) } else { bytes = text?.render(e).map { Array($0.utf8) } }
        guard let bytes else { return }
        clearStatus()
        sink.write(bytes)
        drawStatus(force: true)
    }

    /// Said on stderr, so stdout keeps only the timeline.
    func note(_ s: String) {
        clearStatus()
        FileHandleStderr.write("btlens: \(TerminalText.safe(s))\n")
        drawStatus(force: true)
    }

    func finish(stopped: Bool, written: String?) {
        origin.finish(begin: begin, to: take)
        throttle.finish { show($0) }
        sink.flush()
        clearStatus()
        var summary =
            "\(stopped ? "stopped" : "input ended") after \(Plural.of(records, "record")): \(Plural.of(frames, "frame")), "
            + "\(Plural.of(diagnostics, "diagnostic")) (\(Plural.of(errors, "error")))"
        if stopped { summary += "; \(partial) partial frames or packets left in buffers (reported above)" }
        if let filter { summary += "; \(matched) events matched --filter '\(filter.expression)'" }
        if let written { summary += "; \(written)" }
        FileHandleStderr.write("btlens: \(summary)\n")
    }

    private func drawStatus(force: Bool) {
        guard status else { return }
        let now = Self.now()
        guard force || now - drawn > 0.25 else { return }
        drawn = now
        let rate = Double(records) / max(now - started, 0.001)
        FileHandleStderr.write(
            "\r\u{1b}[2K\u{1b}[2m\(records) records · \(frames) frames · \(diagnostics) diagnostics · \(Int(rate)) records/s\u{1b}[0m"
        )
        shown = true
    }

    private func clearStatus() {
        guard shown else { return }
        FileHandleStderr.write("\r\u{1b}[2K")
        shown = false
    }

    private static func now() -> Double {
        Double(OS.monotonicNanoseconds()) / 1e9
    }
}
