import BTLensCapture
import BTLensCore
import BTLensDissect

/// Reads a capture to its end through the analyzer, handing every record and event to the callers.
public enum Pipeline {
    /// Returns the analyzer (connections, GATT databases) once the capture is done.
    @discardableResult
    public static func run(
        _ reader: inout any CaptureReader, _ configuration: Configuration = Configuration(),
        onRecord: ((CaptureRecord) -> Void)? = nil,
        onProblem: (CaptureProblem) -> Void = { _ in },
        onEvent: @escaping (consuming Event) -> Void
    ) throws(CaptureOpenError) -> Analyzer {
        let analyzer = Analyzer(configuration, emit: onEvent)
        while let item = try reader.next() {
            // A record is copied out of its item only for a caller that takes it.
            if let onRecord, case .record(let r) = item { onRecord(r) }
            if case .problem(let p) = item { onProblem(p) }
            analyzer.process(item)
        }
        analyzer.finish()
        return analyzer
    }

    /// The same, with the file read and its records split on this thread while a second one decodes:
    /// decoding is the longest stage, and reading then runs beside it. The callbacks run on the
    /// decoding thread (`stats` counts there); `runRelayed` adds a third.
    @discardableResult
    public static func runReadingAhead(
        _ reader: inout any CaptureReader, _ configuration: Configuration = Configuration(),
        onRecord: ((CaptureRecord) -> Void)? = nil,
        onProblem: @escaping (CaptureProblem) -> Void = { _ in },
        onEvent: @escaping (consuming Event) -> Void
    ) throws(CaptureOpenError) -> Analyzer {
        let analyzer = Analyzer(configuration, emit: onEvent)
        let relay = Relay<CaptureItem> { item in
            // One copy of the record for the callback and the analyzer both.
            switch item {
            case .record(let r):
                onRecord?(r)
                analyzer.process(r)
            case .problem(let p):
                onProblem(p)
                analyzer.process(item)
            }
        }
        do {
            // What the reader moved past is what the record holds: weighed without looking into it.
            var read = reader.bytesRead
            while let item = try reader.next() {
                let now = reader.bytesRead
                relay.send(item, bytes: Int(truncatingIfNeeded: now &- read))
                read = now
            }
        } catch {
            relay.finish()
            throw error
        }
        relay.finish()
        analyzer.finish()
        return analyzer
    }

    /// The three-thread layout of `timeline` and `report`: the file read on this thread, decoded on a
    /// second, and what the decoding thread relays consumed on a third (rendered and written, or built
    /// into a report), in order and with bounded memory (`Relay`). `onRecord` and `onEvent` run on the
    /// decoding thread and send what the third needs; `consume` runs on the third, and what it captures
    /// is its alone until this returns, also when reading fails.
    ///
    /// Inlinable, so that the relay is specialized for the caller's item type (as `Relay` explains).
    @inlinable @discardableResult
    public static func runRelayed<Item: Sendable>(
        _ reader: inout any CaptureReader, _ configuration: Configuration = Configuration(),
        onRecord: @escaping (CaptureRecord, Relay<Item>) -> Void = { _, _ in },
        onProblem: @escaping (CaptureProblem) -> Void = { _ in },
        onEvent: @escaping (consuming Event, Relay<Item>) -> Void,
        consume: @escaping (Item) -> Void
    ) throws(CaptureOpenError) -> Analyzer {
        let relay = Relay<Item>(consume)
        defer { relay.finish() }
        return try runReadingAhead(
            &reader, configuration, onRecord: { onRecord($0, relay) }, onProblem: onProblem,
            onEvent: { e in onEvent(e, relay) })
    }
}
