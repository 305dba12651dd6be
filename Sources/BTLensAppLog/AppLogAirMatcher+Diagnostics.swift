import BTLensCore
import BTLensDissect

/// Where the log and the air disagree (docs/app-logs.md, "Disagreements").
extension AppLogAirMatcher {
    /// What a line matched as `m` disagrees with, said after its entry: a command logged after one
    /// that went out later (`app.order`), bytes logged as sent that no packet carried
    /// (`app.tx.not_on_air`). `lastSent` is its log's latest record matched as sent, and its line;
    /// `record` the record the line comes after.
    public static func disagreements(
        _ m: LineMatch, of line: AppLogLine, in source: String, at: Int64, lastSent: inout (record: Int, line: Int)?,
        record: Int, _ say: (Event) -> Void
    ) {
        let time = Timestamp(microseconds: at)
        if let r = m.sent, let last = lastSent, r < last.record {
            let d = Diagnostic(
                AppLogAirDiagnostics.order,
                "\(source):\(last.line) was logged before line \(line.number), but its bytes went out after them: #\(last.record) after #\(r)",
                fields: [
                    ("source", .string(source)), ("line", .int(line.number)), ("earlier_line", .int(last.line)),
                    ("air_record", .int(r)), ("earlier_air_record", .int(last.record)),
                ])
            say(Event(record: r, timestamp: time, direction: .sent, connection: nil, isTop: true, body: .diagnostic(d)))
        }
        if let r = m.sent, r >= lastSent?.record ?? 0 { lastSent = (r, line.number) }
        guard let unsent = m.unsent else { return }
        let d = Diagnostic(
            AppLogAirDiagnostics.txNotOnAir,
            "\(source):\(line.number) logs \(unsent.bytes.count) bytes sent (\(Hex.string(unsent.bytes.prefix(16)))\(unsent.bytes.count > 16 ? "…" : "")) that no packet carried within \(window / 1_000_000) s",
            fields: [("source", .string(source)), ("line", .int(line.number)), ("bytes", .bytes(unsent.bytes))])
        say(
            Event(record: record, timestamp: time, direction: .sent, connection: nil, isTop: true, body: .diagnostic(d))
        )
    }

    /// Values older than `limit` leave the window: one received on a stream the app logs that no
    /// line matched is said to `say` with the slot of its event in the second hold, once per
    /// stream (`AppLogUnlogged`). `detected` is the record the merger has reached.
    public mutating func prune(before limit: Int64, detected: Int, _ say: (_ slot: Int, Event) -> Void) {
        prunedBefore = max(prunedBefore, limit)
        while values.firstID < drainedEnd, values[values.firstID].time < limit {
            let v = values.removeFirst()
            guard v.direction == .received, !v.derived, !v.matched, loggedStreams.contains(v.stream), !logsPart(of: v)
            else {
                continue
            }
            // Said once per stream, at its first value: the later ones are counted, and said together
            // at the end (an app that never logs a class of values, such as a frame's continuations).
            guard unlogged.first(v) else { continue }
            let d = Diagnostic(
                AppLogAirDiagnostics.rxNotLogged,
                "#\(v.record): \(v.bytes.count) bytes received on \(v.stream), which the app logs, that no log line shows within \(Self.window / 1_000_000) s",
                fields: [("bytes", .bytes(Array(v.bytes))), ("detected_record", .int(detected))])
            say(
                v.slot,
                Event(
                    record: v.record, timestamp: Timestamp(microseconds: v.time), direction: .received, connection: nil,
                    isTop: true, body: .diagnostic(d)))
        }
        // A run older than the window before `limit` can show no value still in it.
        while unmatchedStart < unmatchedRuns.count, unmatchedRuns[unmatchedStart].time < limit &- Self.window {
            unmatchedBytes -= unmatchedRuns[unmatchedStart].bytes.count
            unmatchedStart += 1
        }
        if unmatchedStart > 1024 && unmatchedStart * 2 > unmatchedRuns.count {
            unmatchedRuns.removeFirst(unmatchedStart)
            unmatchedStart = 0
        }
    }

    /// The streams' later values no line showed, one diagnostic each, said at the end.
    public func laterUnlogged() -> [Diagnostic] { unlogged.later(window: Self.window) }

    /// Whether a line within the window showed part of `v` (one of the frames it holds).
    private func logsPart(of v: AppLogValue) -> Bool {
        unmatchedRuns[unmatchedStart...].contains { r in
            (r.time &- v.time).magnitude <= UInt64(Self.window) && r.bytes.count <= v.bytes.count
                && (0...(v.bytes.count - r.bytes.count)).contains {
                    v.bytes.dropFirst($0).prefix(r.bytes.count).elementsEqual(r.bytes)
                }
        }
    }
}
