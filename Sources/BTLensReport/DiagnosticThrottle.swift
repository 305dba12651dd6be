import BTLensCore
import BTLensDissect

/// What the timeline (`timeline`, `follow`) shows of a flood of diagnostics: a definition that does
/// not fit a device raises one per frame, millions in a large capture. Between the analyzer's events
/// and the renderer, the first `perSecond` diagnostics of a key — the id, the connection and the
/// stream (`att_handle`, `ea_session` or `dlci`) — pass in each window, the rest are counted, and
/// when the window closes each key that lost some is said in one `diagnostic.suppressed` line, put
/// at the record of the last one it stands for. `stats` and the report read the analyzer's events,
/// not these: they count every diagnostic.
///
/// A window is a whole second of capture time since the first event (0–1 s, 1–2 s, …). It closes
/// at the first event in another second (later, or earlier: a capture's clock that went back, or a
/// diagnostic put where its problem began), its lines coming before that event, and at the end of
/// the capture (`finish`). At most `keyLimit` keys are counted per window; the diagnostics of further
/// keys are all shown, never dropped. The counts are freed when the window closes.
public final class DiagnosticThrottle {
    public static let suppressed = DiagnosticKind(
        "diagnostic.suppressed", .note,
        "The timeline showed the first diagnostics of an id on a stream in a second of capture time (--diagnostics-per-second) and counted the rest in this line; stats and reports count them all."
    )
    /// The ids this stage raises (`btlens diagnostics`).
    public static let kinds = [suppressed]
    /// The fields that say which stream a diagnostic is on.
    static let streamFields = ["att_handle", "ea_session", "dlci"]

    /// Diagnostics shown per key and window; 0 shows every one.
    public let perSecond: Int
    /// Keys counted per window (`--limit diagnostic-keys`).
    public let keyLimit: Int

    private struct Key: Hashable {
        var id: String
        var connection: UInt16?
        var stream: String?
        var value: Int64
    }

    private struct Count {
        var shown = 1
        var suppressed = 0
        /// When the key was first seen in the window: the order of lines for the same record.
        var order: Int
        var stream: (String, FieldValue)?
        /// The last diagnostic not shown: where the line about them goes.
        var last: (record: Int, time: Timestamp, direction: Direction?)?
    }

    // Used by the rendering thread only: in `SingleOwnerCell`s, without runtime exclusivity checks
    // (they cost more than the time comparison an event takes).
    private let counts = SingleOwnerCell<[Key: Count]>([:])
    /// The first event's time: windows are whole seconds since it.
    private let origin = SingleOwnerCell<Timestamp?>(nil)
    /// The window's second since the origin, and its bounds in microseconds.
    private let second = SingleOwnerCell<Int64>(0)
    private let start = SingleOwnerCell<Int64>(0)
    private let end = SingleOwnerCell<Int64>(0)

    public init(perSecond: Int, keyLimit: Int = Limits().diagnosticKeys) {
        self.perSecond = perSecond
        self.keyLimit = keyLimit
    }

    /// Hands `e` to `out` unless it is a diagnostic past its key's share of the window; an event
    /// that closes the window comes after the lines of what the window suppressed.
    public func pass(_ e: Event, to out: (Event) -> Void) {
        guard perSecond > 0 else { return out(e) }
        // Seconds count from the traffic's first event, as the timeline's (TrafficOrigin): not from
        // header notes days older.
        if origin.value == nil, !e.isNote { origin.value = e.timestamp }
        // Most events are frames: a time compared, no dictionary, until a diagnostic comes.
        if !counts.value.isEmpty, e.timestamp.microseconds < start.value || e.timestamp.microseconds >= end.value {
            close(out)
        }
        guard e.isTop, case .diagnostic(let d) = e.body else { return out(e) }
        if shows(d, e) { out(e) }
    }

    /// The end of the capture: the lines of the last window.
    public func finish(_ out: (Event) -> Void) {
        if !counts.value.isEmpty { close(out) }
    }

    /// A followed source started over: the last window's lines, and seconds counted from the new one.
    public func restart(_ out: (Event) -> Void) {
        finish(out)
        origin.value = nil
    }

    /// Counts a diagnostic under its key; true when it is to be shown.
    private func shows(_ d: Diagnostic, _ e: Event) -> Bool {
        if counts.value.isEmpty { open(at: e.timestamp) }
        let stream = d.fields.last { Self.streamFields.contains($0.0) }
        var value: Int64 = 0
        switch stream?.1 {
        case .int(let v)?, .hex(let v, _)?: value = v
        default: break
        }
        let key = Key(id: d.id, connection: e.connection, stream: stream?.0, value: value)
        guard let i = counts.value.index(forKey: key) else {
            // Past the bound a key is not counted: its diagnostics are all shown.
            if counts.value.count < keyLimit { counts.value[key] = Count(order: counts.value.count, stream: stream) }
            return true
        }
        if counts.value.values[i].shown < perSecond {
            counts.value.values[i].shown += 1
            return true
        }
        counts.value.values[i].suppressed += 1
        counts.value.values[i].last = (e.record, e.timestamp, e.direction)
        return false
    }

    /// The window of the second `time` lies in.
    private func open(at time: Timestamp) {
        let origin = self.origin.value ?? time
        let elapsed = time.elapsed(since: origin)
        // Whole seconds, rounded down also before the origin.
        second.value = elapsed >= 0 ? elapsed / 1_000_000 : -((-(elapsed + 1)) / 1_000_000) - 1
        start.value = origin.microseconds.saturatingAdding(second.value.saturatingMultiplying(by: 1_000_000))
        end.value = start.value.saturatingAdding(1_000_000)
    }

    /// One line per key that suppressed something, in record order; then the counts are freed.
    private func close(_ out: (Event) -> Void) {
        let lost = counts.value.filter { $0.value.suppressed > 0 }.sorted {
            ($0.value.last?.record ?? 0, $0.value.order) < ($1.value.last?.record ?? 0, $1.value.order)
        }
        for (key, c) in lost {
            guard let last = c.last else { continue }
            out(
                Event(
                    record: last.record, timestamp: last.time, direction: last.direction, connection: key.connection,
                    isTop: true, body: .diagnostic(line(key, c, lastRecord: last.record))))
        }
        counts.value = [:]
    }

    /// `… and 1,234 more a5.payload.short on att_handle 0x0015 in the second from 12.000 s (last at #98765)`.
    private func line(_ key: Key, _ c: Count, lastRecord: Int) -> Diagnostic {
        var fields: [(String, FieldValue)] = [("suppressed_id", .string(key.id)), ("count", .int(c.suppressed))]
        var on = ""
        if let stream = c.stream {
            fields.append(stream)
            switch stream.1 {
            case .hex(let v, let digits): on = " on \(stream.0) \(Hex.value(v, width: digits))"
            default: on = " on \(stream.0) \(key.value)"
            }
        }
        fields.append(("last_record", .int(lastRecord)))
        return Diagnostic(
            Self.suppressed,
            "… and \(Self.grouped(c.suppressed)) more \(key.id)\(on) in the second from \(second.value).000 s (last at #\(lastRecord))",
            fields: fields)
    }

    /// `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var s = n < 0 ? "-" : ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { s += "," }
            s.append(d)
        }
        return s
    }
}
