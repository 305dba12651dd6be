import BTLensCore
import BTLensDissect

/// The received values that no log line showed, on streams the app logs: the first of a stream is
/// said where it is (`app.rx.not_logged`), the later ones are counted and said in one diagnostic
/// per stream at the end. An app that never logs one class of values (notifications that continue
/// a frame) gives two notes, not one per value.
///
/// Bounded: `streamLimit` streams, `recordsKept` records named for each; past `streamLimit`, each
/// value of a new stream is said where it is.
struct AppLogUnlogged {
    static let streamLimit = 1024
    static let recordsKept = 20

    struct Later {
        var first: Int
        var count = 0
        var records: [Int] = []
    }

    private var streams: [AppLogValue.Stream: Later] = [:]

    /// Whether `v` is the first of its stream (to be said where it is); otherwise it is counted.
    mutating func first(_ v: AppLogValue) -> Bool {
        guard var later = streams[v.stream] else {
            if streams.count < Self.streamLimit { streams[v.stream] = Later(first: v.record) }
            return true
        }
        later.count += 1
        if later.records.count < Self.recordsKept { later.records.append(v.record) }
        streams[v.stream] = later
        return false
    }

    /// One diagnostic per stream that had values after its first, in the order of their first.
    func later(window: Int64) -> [Diagnostic] {
        streams.filter { $0.value.count > 0 }.sorted { $0.value.first < $1.value.first }.map { stream, later in
            let named = later.records.map { "#\($0)" }.joined(separator: ", ")
            let more = later.count > later.records.count ? ", … (\(later.count) in all)" : ""
            return Diagnostic(
                AppLogAirDiagnostics.rxNotLogged,
                "\(later.count) more value\(later.count == 1 ? "" : "s") received on \(stream) after #\(later.first) that no log line shows within \(window / 1_000_000) s: \(named)\(more)",
                fields: [
                    ("first_record", .int(later.first)), ("count", .int(later.count)),
                    ("records", .string(named + more)),
                ])
        }
    }
}
