import BTLensCapture
import BTLensCore

/// What every layer shares: the settings, and where events go.
///
/// One thread drives an analyzer and its layers, one record at a time; the consumer of the events
/// never calls back into them.
final class LayerContext {
    private let sink: (consuming Event) -> Void
    /// The most severe diagnostic so far (for `--fail-on`).
    private(set) var worstSeverity: Severity?
    /// What was counted and not sent, in `.counts` detail. In a cell, without runtime exclusivity
    /// checks (one per ATT PDU and frame in `stats`): one thread drives the analyzer, and a count is one `+=`.
    let tally = SingleOwnerCell(Tally())
    let limits: Limits
    let decodeAs: [DecodeAs]
    let dissectors: DissectorTable
    /// False when no consumer shows ACL fragments and L2CAP PDUs (`--verbose`): they are not built.
    let lowerLayers: Bool
    let detail: Analyzer.Detail
    /// ATT PDUs as events: `.full` detail, unless the configuration counts them (`attEvents`).
    let attEvents: Bool
    /// The bytes of values and of frames no dissector decodes are copied out for the events.
    let valueBytes: Bool

    init(_ c: Configuration, sink: @escaping (consuming Event) -> Void) {
        decodeAs = c.decodeAs
        dissectors = c.dissectors
        lowerLayers = c.lowerLayers
        detail = c.detail
        attEvents = c.detail == .full && c.attEvents
        valueBytes = c.detail == .full && c.keepsValues
        limits = c.limits
        self.sink = sink
    }

    func emit(_ e: consuming Event) {
        if case .diagnostic(let d) = e.body, worstSeverity.map({ d.severity > $0 }) ?? true {
            worstSeverity = d.severity
        }
        sink(e)
    }

    func say(_ r: CaptureRecord, _ handle: UInt16?, _ d: Diagnostic, _ direction: Direction? = nil) {
        emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: direction ?? r.direction, connection: handle,
                isTop: true, body: .diagnostic(d)))
    }

    func undecoded(_ r: CaptureRecord, _ handle: UInt16?, _ what: String, _ bytes: ArraySlice<UInt8>) {
        undecoded(record: r.number, time: r.timestamp, direction: r.direction, handle, what, bytes)
    }

    /// Bytes no decoder takes, the first `--limit undecoded-bytes` of them kept (none for `.counts`).
    func undecoded(
        record: Int, time: Timestamp, direction: Direction?, _ handle: UInt16?, _ what: String,
        _ bytes: ArraySlice<UInt8>
    ) {
        let kept = Array(bytes.prefix(valueBytes ? limits.undecodedBytes : 0))
        emit(
            Event(
                record: record, timestamp: time, direction: direction, connection: handle, isTop: true,
                body: .undecoded(UndecodedInfo(what: what, length: bytes.count, bytes: kept))))
    }

    /// The diagnostic with its undecoded bytes taken from one of its fields, unless it has them.
    func with(_ d: Diagnostic, undecoded: FieldValue?) -> Diagnostic {
        var d = d
        if d.undecodedBytes == 0, case .int(let n)? = undecoded { d.undecodedBytes = Int(n) }
        return d
    }
}
