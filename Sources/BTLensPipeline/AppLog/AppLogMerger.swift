import BTLensAppLog
import BTLensCore
import BTLensDissect
import Foundation

/// App logs placed on the capture's timeline (`--app-log`): wires each log's source (its file,
/// read on a thread of its own) and lane (`AppLogLane`) to the clock aligner (`AppLogClock`) and
/// the air matcher (`AppLogAirMatcher`), and merges the lines with the events in time order.
///
/// Events pass through two holds of `window` each: the first lets a line see the values sent
/// after it, the second lets a received value no line showed be said right after its event.
///
/// Bounded (`AppLogBounds`): while the offset is found, at most `readAhead` lines of each log and
/// `holdLimit` events (or `alignTime` of capture time) are held. Each hold keeps at most
/// `holdLimit` events and `holdBytes` of their bytes: past those, the oldest go on early.
public final class AppLogMerger {
    static let window = AppLogBounds.window

    /// An event in the first hold, with its time and bytes read once, and the id of the value a
    /// line may show (-1: none).
    struct Held {
        var event: Event
        var time: Int64
        var bytes: Int
        var value: Int
    }

    let options: Options
    let sources: [AppLogSource]
    /// One per source, in the same order.
    var lanes: [AppLogLane]
    var aligned = false
    /// The most severe diagnostic the merger said (for `--fail-on`).
    public private(set) var worstSeverity: Severity?
    private var referenceSet = false
    /// The first hold.
    var held: [Held] = []
    var heldStart = 0
    var heldBytes = 0
    /// The second hold.
    var output = AppLogHold()
    var air = AppLogAirMatcher()
    var lastRecord = 0
    /// The time of the last event passed on from the first hold, and of the newest one held.
    var drained: Int64 = .min
    var newest: Int64 = .min
    /// The time of the earliest line not yet placed (`.min`: not known, `.max`: none left).
    var nextTime: Int64 = .min
    /// The capture's first and last times.
    private var captureSpan: ClosedRange<Int64>?
    /// Each log's alignment, said before its first line (after the note of what was loaded).
    var alignments: [Event] = []
    /// Reads the capture again from its start, handing on each event: set by a command whose
    /// capture is a file, so that a log its first minute does not place is aligned over all of it.
    public var reread: ((_ each: @escaping (borrowing Event) -> Void) throws -> Void)?
    /// The capture's first event's time.
    var firstEventTime: Int64?
    /// Live: the last event's time, and the monotonic clock (ns) when it came.
    var lastEvent: (time: Int64, wall: UInt64)?
    var lastFlush: UInt64 = 0

    /// Opens the logs: one that cannot be read is said before any output.
    public init(_ options: Options) throws {
        self.options = options
        let keep = try Self.keep(options.filter)
        sources = try options.files.map { try Self.source($0, options, keep) }
        for s in sources { try s.detectFormat() }
        lanes = Array(
            repeating: AppLogLane(byteLimit: AppLogBounds.laneBytes / max(sources.count, 1)), count: sources.count)
    }

    deinit { for s in sources { s.stopReading() } }

    /// How text names each log's lines when there are several.
    public var names: [String: String] { AppLogEntry.names(sources.map(\.name)) }

    /// One event of the capture: held, then passed on with the log lines before it.
    public func event(_ e: Event, _ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try take(e, watched(pass)) }
    }

    private func take(_ e: Event, _ out: (Event) -> Void) throws {
        if !referenceSet {
            setReference(e.timestamp.microseconds)
            firstEventTime = e.timestamp.microseconds
            // From now on each log is read on a thread of its own, its year reference set.
            if !options.live { for s in sources { s.readOnAThread() } }
        }
        let t = e.timestamp.microseconds
        captureSpan = captureSpan.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
        let kept = e.detached()
        let id = air.add(kept)
        let bytes = kept.heldBytes
        held.append(Held(event: kept, time: t, bytes: bytes, value: id))
        newest = max(newest, t)
        // A line waiting for its value looks again.
        if lanes.contains(where: { $0.isWaiting }) { nextTime = .min }
        heldBytes += bytes
        if options.live {
            lastEvent = (t, Self.wallNow())
            // The logs grow: look for their next lines again.
            nextTime = .min
            guard try alignLive() || full else { return }
            aligned = true
        } else if !aligned {
            let first = held[heldStart].time
            guard full || t &- first > AppLogBounds.alignTime else { return }
            try align()
        }
        try drain(upTo: t &- Self.window, out)
        while full { try drain(upTo: held[heldStart].time, out) }
    }

    /// The values before `t` have seen every line within the window: those no line showed are
    /// said, and the events waiting for them go on (live, every event goes on).
    func settle(before t: Int64, _ out: (Event) -> Void) {
        air.prune(before: t, detected: lastRecord) { output.follow($0, $1) }
        output.release(before: options.live ? .max : t, out)
    }

    /// The first hold is at its bound.
    private var full: Bool { held.count - heldStart > AppLogBounds.holdLimit || heldBytes > AppLogBounds.holdBytes }

    /// The end of the capture: everything held, then the logs' remaining lines.
    public func finish(_ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try end(watched(pass)) }
    }

    private func end(_ out: (Event) -> Void) throws {
        // Growing logs grow no more: what their readers hold comes out.
        for s in sources { s.finish() }
        // A capture with no event: the logs' lines still come out, their year this one.
        if !referenceSet { setReference(Int64(Date().timeIntervalSince1970 * 1e6)) }
        if !aligned { try align() }
        try drain(upTo: .max, out)
        sayAlignments()
        while let (i, line) = try earliestLine(ending: true) {
            lanes[i].advance()
            place(line, i, out)
        }
        settle(before: .max, out)
        for d in air.laterUnlogged() {
            out(
                Event(
                    record: lastRecord, timestamp: Timestamp(microseconds: captureSpan?.upperBound ?? drained),
                    direction: .received, connection: nil, isTop: true, body: .diagnostic(d)))
        }
        outside(out)
    }

    /// A log none of whose lines falls within the capture's time is said, once, at the end.
    private func outside(_ out: (Event) -> Void) {
        guard let capture = captureSpan else { return }
        for (s, lane) in zip(sources, lanes) {
            guard let span = lane.span, span.upperBound < capture.lowerBound || span.lowerBound > capture.upperBound
            else {
                continue
            }
            let d = Diagnostic(
                AppLogAirDiagnostics.outside,
                "\(s.name): its lines run from \(Self.iso(span.lowerBound)) to \(Self.iso(span.upperBound)) on the capture's clock, which runs from \(Self.iso(capture.lowerBound)) to \(Self.iso(capture.upperBound)): no line falls within the capture (method \(lane.alignment?.method.rawValue ?? "clock"); --app-log-offset sets the offset)",
                fields: [
                    ("source", .string(s.name)),
                    ("first_line_time", .string(Self.iso(span.lowerBound))),
                    ("last_line_time", .string(Self.iso(span.upperBound))),
                ])
            // After everything said, in time order.
            let last = lanes.compactMap { $0.span?.upperBound }.max() ?? capture.upperBound
            out(
                Event(
                    record: lastRecord, timestamp: Timestamp(microseconds: max(capture.upperBound, last)),
                    direction: nil, connection: nil, isTop: true, body: .diagnostic(d)))
        }
    }

    static func iso(_ t: Int64) -> String { Timestamp(microseconds: t).iso8601 }

    /// `out`, with the severity of what the merger says kept.
    func watched(_ out: @escaping (Event) -> Void) -> (Event) -> Void {
        { [self] e in
            if case .diagnostic(let d) = e.body, worstSeverity.map({ d.severity > $0 }) ?? true {
                worstSeverity = d.severity
            }
            out(e)
        }
    }

    /// A line that writes no year takes the one that puts it nearest the capture's first event.
    private func setReference(_ t: Int64) {
        for s in sources { s.reference = t }
        referenceSet = true
    }
}
