import BTLensCapture
import BTLensCore

/// Connections lost as a sniffer sees it: no PDU for longer than the supervision timeout (Core v5.4
/// Vol 6 Part B §4.5.2). At the end of a capture nothing is said: the capture ended, not the link.
extension LinkLayerLayer {
    /// The connections `r` shows lost, each with a record at its last PDU plus the timeout (the
    /// record number `r`'s, which showed it), said as inferred and freed; in handle order.
    func lost(before r: CaptureRecord) -> [(ConnectionKey, CaptureRecord)] {
        // A PDU heard only moves a deadline later: until the earliest passes, none is lost.
        if let t = noLossBefore, r.timestamp.microseconds <= t.microseconds { return [] }
        var found: [(aa: UInt32, key: ConnectionKey, s: LLSupervision, at: Timestamp)] = []
        var earliest: Int64?
        for (aa, c) in connections {
            if let at = c.supervision.lost(before: r.timestamp) {
                found.append((aa, c.key, c.supervision, at))
            } else if let d = c.supervision.deadline {
                earliest = min(earliest ?? d, d)
            }
        }
        noLossBefore = earliest.map { Timestamp(microseconds: $0) } ?? (connections.isEmpty ? nil : r.timestamp)
        return found.sorted { $0.key.handle < $1.key.handle }.map { lost in
            connections[lost.aa] = nil
            let ms = (lost.s.timeout ?? 0) / 1000
            let last = lost.s.lastRecord
            ctx.say(
                r, lost.key.handle,
                Diagnostic(
                    LLStateDiagnostics.connectionLost,
                    "expected a PDU within the supervision timeout (\(ms) ms) after #\(last), found none before #\(r.number): the connection is taken as lost \(ms) ms after #\(last) (inferred from what the sniffer heard)",
                    fields: [("last_record", .int(last)), ("timeout_ms", .int(Int(ms)))]))
            var at = r
            at.timestamp = lost.at
            at.direction = nil
            return (lost.key, at)
        }
    }

    /// An LL_CONNECTION_UPDATE_IND's timeout and instant (§2.4.2.1), for the supervision.
    func connectionUpdate(_ payload: ArraySlice<UInt8>, _ c: LLConnection) {
        var r = ByteReader(payload)
        guard (try? r.skip(8)) != nil, let timeout = try? r.u16le(), let instant = try? r.u16le() else { return }
        c.supervision.update(units: timeout, instant: instant, counter: c.sequence.lastCounter)
        noLossBefore = nil
    }
}
