import BTLensCapture
import BTLensCore

/// What a record says about the capture itself, before any layer reads it: time that runs
/// backwards or lies outside any plausible date, and records the capture cut short.
final class RecordChecks {
    private let ctx: LayerContext
    /// The last record read: where the end of the capture is reported. In a cell, without runtime
    /// exclusivity checks (one per record): one thread drives the analyzer, and nothing else writes it.
    var last: RecordPlace { lastPlace.value }
    private let lastPlace = SingleOwnerCell(RecordPlace(record: 0, time: Timestamp(microseconds: 0)))
    /// True once an ACL cut to Android's filtered length has been seen.
    private(set) var androidFiltered = false

    init(_ ctx: LayerContext) { self.ctx = ctx }

    func check(_ r: CaptureRecord) {
        checkTime(r)
        lastPlace.value = RecordPlace(record: r.number, time: r.timestamp)
        if r.isTruncated && r.kind != .note { truncated(r) }
    }

    /// A record the capture cut short. A capture that cuts packets of a kind to one length (Android's
    /// filtered mode cuts ACL to 14 bytes, or to 14 with the H4 byte, in whichever direction it
    /// filters; a snap length) is a condition of the file: it is said at its first record, and the
    /// records after it cut the same way, like the continuations of the PDUs it cut, are lower-layer
    /// detail (`--verbose`).
    private func truncated(_ r: CaptureRecord) {
        let cut = CutCondition(kind: r.kind.name, kept: r.payload.count)
        if saidCuts.contains(cut) || saidCuts.count >= 16 {
            var d = Diagnostic(
                CaptureDiagnostics.recordTruncated,
                "the capture kept \(r.payload.count) of \(r.originalLength) bytes of this \(r.kind.name) packet",
                fields: [("have", .int(r.payload.count)), ("original", .int(r.originalLength))])
            d.undecodedBytes = 0
            return ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil,
                    isTop: false, body: .diagnostic(d)))
        }
        saidCuts.insert(cut)
        if CaptureDiagnostics.isAndroidFilteredCut(r) {
            androidFiltered = true
            return ctx.say(
                r, nil,
                Diagnostic(
                    CaptureDiagnostics.androidFiltered,
                    "ACL packets cut to \(r.payload.count) bytes\(r.payload.count < CaptureDiagnostics.androidFilteredACLLength ? " (14 with the H4 byte)" : "") (this one had \(r.originalLength)): an Android filtered snoop log; payloads are not in the file, and what the cuts leave undecoded is shown with --verbose only. Set \"Enable Bluetooth HCI snoop log\" to Enabled (full) to capture them"
                ))
        }
        ctx.say(
            r, nil,
            Diagnostic(
                CaptureDiagnostics.recordTruncated,
                "the capture kept \(r.payload.count) of \(r.originalLength) bytes of this \(r.kind.name) packet; other \(r.kind.name) packets cut to \(r.payload.count) bytes are shown with --verbose",
                fields: [("have", .int(r.payload.count)), ("original", .int(r.originalLength))]))
    }

    /// A way the capture cuts records: their kind and the bytes it keeps.
    private struct CutCondition: Hashable {
        var kind: String
        var kept: Int
    }
    /// The cut conditions said so far (at most 16; past that every cut is detail).
    private var saidCuts: Set<CutCondition> = []

    private var saidAbsurdTime = false

    /// Time that runs backwards, or lies outside any plausible date, is said (the latter once).
    private func checkTime(_ r: CaptureRecord) {
        let t = r.timestamp.microseconds
        // Hostile times can be anywhere in Int64: the difference saturates (and is absurd, said below).
        let back = last.time.elapsed(since: r.timestamp)
        if last.record > 0, back > CaptureDiagnostics.backwardsTolerance {
            ctx.say(
                r, nil,
                Diagnostic(
                    CaptureDiagnostics.timeBackwards,
                    "timestamp \(r.timestamp.iso8601) is \(last.time.offset(from: r.timestamp)) s before record #\(last.record)'s (\(last.time.iso8601))",
                    fields: [("back_us", .int(back)), ("previous_record", .int(last.record))]))
        }
        if !saidAbsurdTime, !CaptureDiagnostics.plausibleTimes.contains(t) {
            saidAbsurdTime = true
            ctx.say(
                r, nil,
                Diagnostic(
                    CaptureDiagnostics.timeAbsurd,
                    "timestamp \(r.timestamp.iso8601) is outside 2000–2100; times are shown as recorded",
                    fields: [("time_us", .int(t))]))
        }
    }
}
