import BTLensCore
import BTLensDissect

/// The log against the air: the values the capture carried within the window, each line's bytes
/// matched to the packet that carried them, and what the two disagree on (`AppLogAirDiagnostics`).
///
/// Bounded: values leave as the merger's holds pass their events on (`prune`); at most
/// `AppLogBounds.holdLimit` runs that matched nothing are kept, each for the window.
public struct AppLogAirMatcher {
    /// What the air says of one line's bytes.
    public struct LineMatch {
        /// The record of the first value a run matched (`matches_record`).
        public var record: Int?
        /// The record of the first value a run matched as sent, and as received.
        public var sent: Int?
        public var received: Int?
        /// The first whole run said sent that no value within the window is.
        public var unsent: HexRun?
    }

    static let window = AppLogBounds.window
    /// The values of the window: those of the events passed on (ids before `drainedEnd`), then
    /// those of the events held.
    var values = AppLogValues()
    var drainedEnd = 0
    /// Values before this time have left the window.
    var prunedBefore: Int64 = .min
    /// The last ATT value's record, length and id: its frames that are not it whole are values too.
    private var lastATT: (record: Int, count: Int, id: Int)?
    var loggedStreams: Set<AppLogValue.Stream> = []
    /// The received values no line showed, by stream.
    var unlogged = AppLogUnlogged()
    /// Runs of 4 bytes or more that matched no value whole, with their times, from `unmatchedStart`
    /// (at most `holdLimit` runs and `holdBytes` of their bytes, each kept for the window): a
    /// received value that holds one was logged in part, frame by frame.
    var unmatchedRuns: [(time: Int64, bytes: [UInt8])] = []
    var unmatchedStart = 0
    var unmatchedBytes = 0

    public init() {}

    /// Takes the value `e` carried, if any: its id, or -1.
    public mutating func add(_ e: Event) -> Int {
        guard var v = AppLogValue(e) ?? derivedFrame(e) else { return -1 }
        v.hash = Self.hash(v.bytes)
        v.head = v.bytes.count >= 4 ? Self.hash(v.bytes.prefix(4)) : nil
        let id = values.add(v)
        if !v.derived, case .att = e.body { lastATT = (e.record, v.bytes.count, id) }
        return id
    }

    /// The event of `record`, whose value is `id` (-1: none), waits in the second hold at `slot`.
    public mutating func passed(record: Int, value id: Int, slot: Int) {
        if id >= 0 {
            values[id].slot = slot
            drainedEnd = id + 1
        } else if drainedEnd > values.firstID, values[drainedEnd - 1].record == record {
            // Said after the last event of its record (the frame its value holds), not between them.
            values[drainedEnd - 1].slot = slot
        }
    }

    /// The values of 3 bytes or more, with their times: what a log's offset is found from.
    public var valueTimes: AppLogClock.Values {
        var index: AppLogClock.Values = [:]
        for id in values.firstID..<values.endID where values[id].bytes.count >= 3 {
            index[Array(values[id].bytes), default: []].append(values[id].time)
        }
        return index
    }

    /// Matches the runs of 2 bytes or more of a line placed at `at`. A weak run (`03 20`) matches
    /// only a value no line showed, within `weakWindow`, after `after` (the record the log's last
    /// line in the run's direction matched): one that agrees in time and order.
    public mutating func match(_ line: AppLogReadLine, at: Int64, after: LastMatched = LastMatched()) -> LineMatch {
        var m = LineMatch()
        for run in line.runs where run.bytes.count >= 2 {
            let floor =
                run.direction.map { $0 == .sent ? after.sent : after.received } ?? min(after.sent, after.received)
            if let v = run.isWeak ? matchWeak(run, at: at, after: floor, slack: line.resolution) : match(run, at: at) {
                m.record = m.record ?? v.record
                if v.direction == .sent { m.sent = m.sent ?? v.record } else { m.received = m.received ?? v.record }
                continue
            }
            if run.isWeak { continue }
            // Perhaps one frame of a value holding several: kept for the values that leave the
            // window (at most `holdLimit` and `holdBytes`; past those, such a value may be said not logged).
            if run.bytes.count >= 4, run.direction != .sent,
                unmatchedRuns.count - unmatchedStart < AppLogBounds.holdLimit,
                unmatchedBytes + run.bytes.count <= AppLogBounds.holdBytes
            {
                unmatchedRuns.append((at, run.bytes))
                unmatchedBytes += run.bytes.count
            }
            // Only where the values of its whole window are still known: not for a line that
            // came late (a live log written behind the capture, a time going back in the file).
            if run.direction == .sent, run.isComplete, m.unsent == nil, at &- Self.window >= prunedBefore {
                m.unsent = run
            }
        }
        return m
    }

    /// The nearest value within the window whose bytes are the run's, or begin with them (a line
    /// that shows the first 8 bytes or more, or an elided value's head), in the run's direction
    /// when it says one.
    mutating func match(_ run: HexRun, at t: Int64) -> (record: Int, direction: Direction?)? {
        let headed = run.bytes.count >= 8 || (!run.isComplete && run.bytes.count >= 4)
        var best: Candidate?
        // Only the values whose hashes are the run's are looked at.
        for id in values.ids(whole: Self.hash(run.bytes)) { consider(id, run, at: t, whole: true, &best) }
        if headed, best == nil {
            for id in values.ids(head: Self.hash(run.bytes.prefix(4))) { consider(id, run, at: t, whole: false, &best) }
        }
        guard let id = best?.id else { return nil }
        values[id].matched = true
        loggedStreams.insert(values[id].stream)
        // A frame shows each value it came from, back to the one where it began.
        if let p = values[id].parent {
            var (covered, j) = (0, p)
            while j >= values.firstID, covered < values[id].bytes.count {
                if !values[j].derived, values[j].stream == values[id].stream {
                    values[j].matched = true
                    covered += values[j].bytes.count
                }
                j -= 1
            }
        }
        return (values[id].record, values[id].direction)
    }

    /// The records a log's lines last matched, sent and received: a weak run matches a value after them.
    public struct LastMatched: Sendable {
        public var sent = 0
        public var received = 0
        public init() {}

        public mutating func update(_ m: LineMatch) {
            if let r = m.sent { sent = max(sent, r) }
            if let r = m.received { received = max(received, r) }
        }
    }

    /// How near in time a value must be to a weak run: a log's ms times and an offset found to
    /// the ms, with the app's own delay; plus the time a line's written digits leave out (a log
    /// of whole seconds: 1 s).
    static let weakWindow: Int64 = 100_000

    /// The first value after record `after` that no line showed, within `weakWindow`, in the run's
    /// direction: a burst of one value logged line by line is matched in order, not by nearness.
    private mutating func matchWeak(
        _ run: HexRun, at t: Int64, after: Int, slack: Int64
    ) -> (record: Int, direction: Direction?)? {
        let sent = run.direction.map { $0 == .sent }
        let window = UInt64(Self.weakWindow + slack)
        let found = values.ids(whole: Self.hash(run.bytes)).first { id in
            let v = values[id]
            return !v.matched && v.record > after && (v.time &- t).magnitude <= window
                && (sent == nil || v.direction == nil || sent == (v.direction == .sent))
                && v.bytes.elementsEqual(run.bytes)
        }
        guard let id = found else { return nil }
        // Matched, but too weak a sign that the app logs the stream.
        values[id].matched = true
        return (values[id].record, values[id].direction)
    }

    private typealias Candidate = (id: Int, distance: UInt64, whole: Bool, fresh: Bool)

    /// Takes value `id` for `best` if it is the run's (`whole`) or begins with it, and is a better
    /// match: one that is the run's bytes whole before one that only begins with them, one no line
    /// showed yet before one a line did (two lines of a repeated value show one each, even when
    /// the log's times are too coarse to tell which is nearer), then the nearest.
    private func consider(_ id: Int, _ run: HexRun, at t: Int64, whole: Bool, _ best: inout Candidate?) {
        let v = values[id]
        let distance = (v.time &- t).magnitude
        let sent = run.direction.map { $0 == .sent }
        guard distance <= UInt64(Self.window), sent == nil || v.direction == nil || sent == (v.direction == .sent),
            whole
                ? v.bytes.elementsEqual(run.bytes)
                : v.bytes.count > run.bytes.count && v.bytes.starts(with: run.bytes)
        else { return }
        let fresh = !v.matched
        if let b = best,
            (b.whole && !whole)
                || (b.whole == whole && (b.fresh && !fresh || b.fresh == fresh && b.distance <= distance))
        {
            return
        }
        best = (id, distance, whole, fresh)
    }

    /// The time of the first value at or after `after` that a run of the line is (or begins, from
    /// 8 bytes): where a line that writes no time goes.
    public func shown(_ line: AppLogReadLine, after: Int64) -> Int64? {
        for run in line.runs where run.bytes.count >= 3 {
            let head = run.bytes.count >= 8
            let ids =
                values.ids(whole: Self.hash(run.bytes)) + (head ? values.ids(head: Self.hash(run.bytes.prefix(4))) : [])
            let first = ids.lazy.map { self.values[$0] }.filter {
                $0.time >= after && ($0.bytes.elementsEqual(run.bytes) || (head && $0.bytes.starts(with: run.bytes)))
            }.map(\.time).min()
            // A line that says it received the bytes goes after their packet, any other before it.
            if let first { return first &+ (run.direction == .received ? 1 : 0) }
        }
        return nil
    }

    /// FNV-1a: the bytes of a value, hashed once as it is held.
    static func hash(_ bytes: some Collection<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h)
    }

    /// An A5 frame over ATT that its record's value is not, whole: one of several frames in a
    /// notification, or one an app wrote in several writes (as it logs it before cutting it to the MTU).
    private func derivedFrame(_ e: Event) -> AppLogValue? {
        guard case .frame(let f) = e.body, f.transport == .att, f.isA5, f.frame.payload.count == f.frame.payloadCount
        else { return nil }
        let whole = lastATT.map { $0.record == e.record && $0.count == f.frame.length } ?? false
        guard !whole else { return nil }
        var v = AppLogValue(
            record: e.record, time: e.timestamp.microseconds, bytes: AppLogValue.wireBytes(f.frame)[...],
            direction: e.direction, stream: AppLogValue.Stream(connection: e.connection, handle: f.attHandle))
        v.derived = true
        v.parent = lastATT.flatMap { $0.record == e.record ? $0.id : nil }
        return v
    }
}
