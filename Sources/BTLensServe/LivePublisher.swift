import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensReport

/// The capture's side of the live page, on the thread that decodes: each event rendered once, as
/// its JSONL line with the timeline's text beside it, and each record's layers for the details.
/// The analyzer it is fed from decodes the lower layers (`Configuration.lowerLayers`); only the
/// timeline's own events become rows.
public final class LivePublisher {
    private let hub: LiveHub
    private let jsonl = JSONLRenderer()
    private var row = TextRenderer()
    private var layers = TextRenderer(verbose: true)
    private var origin = TrafficOrigin()
    private var restarted: String?
    /// Ends a wait for the pages (`view`) when the run is stopped.
    public var stopping: () -> Bool = { false }

    public init(_ hub: LiveHub) { self.hub = hub }

    public func record(_ r: CaptureRecord) {
        hub.record(RecordDetails(record: r.number, bytes: Array(r.payload), originalLength: r.originalLength))
    }

    public func event(_ e: Event) {
        if let why = restarted {
            restarted = nil
            origin.pass(.followRestart(why, at: e), begin: begin, to: take)
        }
        origin.pass(e, begin: begin, to: take)
    }

    /// A new source: records and seconds start again (as `follow` says in the terminal).
    public func restart(_ why: String) {
        origin.finish(begin: begin, to: take)
        origin = TrafficOrigin()
        row.origin = nil
        layers.origin = nil
        restarted = why
        hub.restart()
    }

    public func finish(stopped: Bool) {
        origin.finish(begin: begin, to: take)
        hub.finish(stopped: stopped)
    }

    /// A rendered line without its newline.
    static func chomp(_ line: String) -> String { line.last == "\n" ? String(line.dropLast()) : line }

    private func begin(_ t: Timestamp) {
        row.origin = t
        layers.origin = t
        hub.begin(at: t)
    }

    private func take(_ e: Event) {
        if let line = layers.render(e) { hub.detailLine(Self.chomp(line), record: e.record) }
        guard e.isTop, var line = jsonl.render(e), let text = row.render(e) else { return }
        // The contract's line, with the row's text as one more key: `{…,"timeline":"#7 …"}`.
        if line.last == 0x0a { line.removeLast() }
        guard line.last == UInt8(ascii: "}") else { return }
        line.removeLast()
        let key = #","timeline":"#.utf8
        let value = JSONWriter.encode(Self.chomp(text))
        // Exactly its size: it is held for long.
        var held: [UInt8] = []
        held.reserveCapacity(line.count + key.count + value.count + 1)
        held += line
        held += key
        held += value
        held.append(UInt8(ascii: "}"))
        hub.publish(e, line: held, stopping: stopping)
    }
}
