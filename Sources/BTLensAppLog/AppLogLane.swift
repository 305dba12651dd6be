import BTLensDissect

/// One log's lines on their way to the timeline: read ahead into time order, or held while a line
/// that writes no time waits for the value its bytes show; its next line placed on the capture's
/// clock. The lines come from `read` (the log's source); where an untimed line's bytes were carried
/// comes from `shown` (`AppLogAirMatcher.shown`).
///
/// Bounded: `reorderLines` lines read ahead, `untimedLookahead` lines held, and `byteLimit` bytes
/// of those lines (`AppLogReadLine.heldBytes`; at least one line).
public struct AppLogLane {
    /// A line with its place on the capture's clock.
    public struct Placed: Sendable {
        public var line: AppLogReadLine
        public var time: Int64
    }

    /// Where the capture is, for a line that writes no time: the time of the first event the merger
    /// holds (nil: none), of the last it passed on, and of the newest it holds.
    public struct Capture: Sendable {
        public var firstHeld: Int64?
        public var drained: Int64
        public var newest: Int64
        /// The capture has ended: no value is still to come.
        public var ending: Bool

        public init(firstHeld: Int64?, drained: Int64, newest: Int64, ending: Bool) {
            (self.firstHeld, self.drained, self.newest, self.ending) = (firstHeld, drained, newest, ending)
        }
    }

    /// Lines whose times go back a little (threads, logcat's buffers interleaved) come out in time
    /// order: a log is read ahead until 1 s past its earliest line not yet placed, at most 1,024 lines.
    static let reorderSpan: Int64 = 1_000_000
    static let reorderLines = 1024
    /// How long a line of a log with no times waits for the value its bytes show, and how many
    /// lines after it are read meanwhile.
    static let untimedWait: Int64 = 10_000_000
    static let untimedLookahead = 32

    /// How its clock meets the capture's (nil: not found yet).
    public var alignment: AppLogAlignment?
    /// Its next line, placed.
    public var next: Placed?
    /// Lines that write no time (logcat brief): the next ones while the first waits for the
    /// value its bytes show, and where the last one went.
    var waiting: [AppLogReadLine] = []
    var untimedLast: Int64?
    /// Timed lines read ahead into time order (`timedLine`), from `reorderStart`, and the
    /// latest time among them.
    var reorder: [Placed] = []
    var reorderStart = 0
    var reorderLatest: Int64 = .min
    /// Its first and last placed line's times.
    public private(set) var span: ClosedRange<Int64>?
    /// The latest record a line matched as sent, and that line: a later line matching an earlier
    /// record is out of order.
    public var lastSent: (record: Int, line: Int)?
    /// The records its lines last matched (a weak run's value is at or after them).
    public var lastMatched = AppLogAirMatcher.LastMatched()
    /// Live: when its first line was seen (its offset waits at most a while after).
    public var seen: UInt64?
    /// The bytes of the lines in `waiting` and `reorder` (from `reorderStart`), and their bound.
    var heldBytes = 0
    let byteLimit: Int

    /// `byteLimit`: its share of `AppLogBounds.laneBytes`.
    public init(byteLimit: Int = AppLogBounds.laneBytes) { self.byteLimit = byteLimit }

    /// There is room for another line.
    var hasRoom: Bool { heldBytes < byteLimit }

    /// A line waits for its value: each event may be it.
    public var isWaiting: Bool { !waiting.isEmpty }

    /// Its next line (kept in `next` until `advance`), nil when it has none now.
    public mutating func peek(
        _ capture: Capture, read: () throws -> AppLogReadLine?, shown: (AppLogReadLine, Int64) -> Int64?
    ) throws -> Placed? {
        if next == nil { next = try timedLine(read) }
        if next == nil, let line = try waiting.first ?? read() {
            if !waiting.isEmpty {
                waiting.removeFirst()
                heldBytes -= line.heldBytes
            }
            if let t = AppLogClock.time(of: line, alignment) {
                next = Placed(line: line, time: t)
            } else if let t = try untimedTime(line, capture, read: read, shown: shown) {
                next = Placed(line: line, time: t)
                untimedLast = t
            } else {
                waiting.insert(line, at: 0)
                heldBytes += line.heldBytes
            }
        }
        return next
    }

    /// Its next line is placed: its time joins the span, and the line after it is next.
    public mutating func advance() {
        if let at = next?.time { span = span.map { min($0.lowerBound, at)...max($0.upperBound, at) } ?? at...at }
        next = nil
    }

    /// A timed log's next line in time order (equal times in file order); nil when it has none
    /// now, or its next line writes no time (it waits in `waiting`).
    mutating func timedLine(_ read: () throws -> AppLogReadLine?) throws -> Placed? {
        while waiting.isEmpty, reorder.count - reorderStart < Self.reorderLines,
            reorderStart == reorder.count || hasRoom && reorderLatest &- reorder[reorderStart].time < Self.reorderSpan,
            let line = try read()
        {
            heldBytes += line.heldBytes
            guard let time = AppLogClock.time(of: line, alignment) else {
                waiting.append(line)
                break
            }
            reorderLatest = max(reorderLatest, time)
            var at = reorder.count
            while at > reorderStart, reorder[at - 1].time > time { at -= 1 }
            reorder.insert(Placed(line: line, time: time), at: at)
        }
        guard reorderStart < reorder.count else { return nil }
        let p = reorder[reorderStart]
        reorderStart += 1
        heldBytes -= p.line.heldBytes
        if reorderStart > 512 {
            reorder.removeFirst(reorderStart)
            reorderStart = 0
        }
        return p
    }

    /// Where a line that writes no time goes: at the first value its bytes are (or begin), at or
    /// after the log's last line. A line with no bytes goes right after the line before it, and so
    /// does one whose value has not come while a line after it has found its own (or within
    /// `untimedWait` of capture time). Nil: it waits for more events.
    mutating func untimedTime(
        _ line: AppLogReadLine, _ capture: Capture, read: () throws -> AppLogReadLine?,
        shown: (AppLogReadLine, Int64) -> Int64?
    ) throws -> Int64? {
        let after = untimedLast ?? capture.firstHeld ?? capture.drained
        let now = max(after, capture.drained)
        guard line.runs.contains(where: { $0.bytes.count >= 3 }) else { return now }
        if let t = shown(line, after) { return t }
        if capture.ending || capture.newest &- after > Self.untimedWait { return now }
        // A line after it found its value: this one's never came.
        while waiting.count < Self.untimedLookahead, hasRoom, let next = try read() {
            waiting.append(next)
            heldBytes += next.heldBytes
        }
        return waiting.contains { shown($0, after) != nil } ? now : nil
    }
}
