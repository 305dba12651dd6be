import BTLensCore
import BTLensCapture
import BTLensDissect

/// Reads a capture to its end through the analyzer, handing every record and event to the callers.
public enum Pipeline {
    /// Returns the analyzer (connections, GATT databases) once the capture is done.
    @discardableResult
    public static func run(_ reader: inout any CaptureReader, _ configuration: Configuration = Configuration(),
                           onRecord: ((CaptureRecord) -> Void)? = nil,
                           onProblem: (CaptureProblem) -> Void = { _ in },
                           onEvent: @escaping (consuming Event) -> Void) throws(CaptureOpenError) -> Analyzer {
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
    /// decoding thread; a renderer relayed from `onEvent` makes a third, as the timeline's does.
    @discardableResult
    public static func runReadingAhead(_ reader: inout any CaptureReader, _ configuration: Configuration = Configuration(),
                                       onRecord: ((CaptureRecord) -> Void)? = nil,
                                       onProblem: @escaping (CaptureProblem) -> Void = { _ in },
                                       onEvent: @escaping (consuming Event) -> Void) throws(CaptureOpenError) -> Analyzer {
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
}
