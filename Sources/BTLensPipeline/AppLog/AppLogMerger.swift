import BTLensAppLog
import BTLensCore
import BTLensDissect
import Foundation

/// App logs placed on the capture's timeline (`--app-log`): each log's clock is put on the
/// capture's by the lines whose bytes the capture carries, then its lines are merged with the
/// events in time order, each line that shows bytes matched to the packet that carried them
/// within `window`.
///
/// Events pass through two holds of `window` each: the first lets a line see the values sent
/// after it, the second lets a received value no line showed be said right after its event.
///
/// Bounded: while the offset is found, at most `readAhead` lines of each log and `holdLimit`
/// events (or `alignTime` of capture time) are held, and at most 100,000 candidate offsets
/// weighed. Each hold keeps at most `holdLimit` events and `holdBytes` of their bytes: past
/// those, the oldest go on early.
public final class AppLogMerger {
    public struct Options {
        public var files: [String]
        public var format: AppLogFormat?
        /// `--app-log-offset`: the log's clock + this is the capture's; no content alignment.
        public var offsetMicroseconds: Int64?
        /// `--app-log-filter`: a tag, or a regular expression searched in the line.
        public var filter: String?
        /// `follow`: the logs grow; events are said as soon as the window has passed, with no
        /// second hold, and the offset as soon as every log has 3 lines agreeing on it (or after `liveAlignWait`).
        public var live: Bool
        /// The capture, whose bugreport's logcat `--app-log bugreport` names.
        public var capture: String?
        public init(
            files: [String], format: AppLogFormat? = nil, offsetMicroseconds: Int64? = nil, filter: String? = nil,
            live: Bool = false, capture: String? = nil
        ) {
            self.capture = capture
            self.files = files
            self.format = format
            self.offsetMicroseconds = offsetMicroseconds
            self.filter = filter
            self.live = live
        }
    }

    static let window: Int64 = 2_000_000
    static let alignTime: Int64 = 60_000_000
    static let readAhead = 20_000
    static let holdLimit = 50_000
    static let holdBytes = 16 << 20
    /// Nanoseconds a live log waits for 3 lines to agree on its offset before it takes what it has.
    static let liveAlignWait: UInt64 = 10_000_000_000

    /// A connection's ATT handle, or a channel no decoder took; words only when a diagnostic says it.
    struct Stream: Hashable, CustomStringConvertible {
        var connection: UInt16?
        var handle: UInt16?
        var what: String?
        var description: String {
            let c = connection.map { Hex.value($0, width: 4) } ?? "-"
            return handle.map { "\(c) ATT \(Hex.value($0, width: 4))" } ?? "\(c) \(what ?? "")"
        }
    }

    /// A value the capture carried: what a log line may show.
    struct Value {
        var record: Int
        var time: Int64
        /// A slice of the held event's own copy of its value: one copy per value, not two.
        var bytes: ArraySlice<UInt8>
        var direction: Direction?
        /// Its stream: a stream the app logs is one a line matched.
        var stream: Stream
        var matched = false
        /// The hashes of its bytes and of its first 4, kept for the index (`AppLogValues`).
        var hash = 0
        var head: Int?
        /// Where its event waits in the second hold (`AppLogHold.hold`).
        var slot = 0
        /// An A5 frame over ATT that is not its record's value whole (one of several in it, or one
        /// joined from several writes): a line showing it shows each value it came from (`parent`,
        /// the last, and those before it on its stream), and it is never said not logged itself.
        var derived = false
        var parent: Int?
    }

    private let options: Options
    private let keep: (AppLogLine) -> Bool
    private var sources: [AppLogSource] = []
    private var aligned = false
    /// The most severe diagnostic the merger said (for `--fail-on`).
    public private(set) var worstSeverity: Severity?
    private var referenceSet = false
    /// An event in the first hold, with its time and bytes read once, and the id of the value a
    /// line may show (-1: none).
    struct Held {
        var event: Event
        var time: Int64
        var bytes: Int
        var value: Int
    }
    /// The first hold. The merger's state is used by one thread, never across a call back into it
    /// (`out` only renders): the hot parts drop the runtime's exclusivity check, as in `StatsCollector`.
    @exclusivity(unchecked) private var held: [Held] = []
    @exclusivity(unchecked) private var heldStart = 0
    @exclusivity(unchecked) private var heldBytes = 0
    /// The second hold.
    @exclusivity(unchecked) private var output = AppLogHold()
    /// The values of the window: those of the events passed on (ids before `drainedEnd`), then
    /// those of the events held.
    @exclusivity(unchecked) private var values = AppLogValues()
    @exclusivity(unchecked) private var drainedEnd = 0
    /// Values before this time have left the window.
    private var prunedBefore: Int64 = .min
    /// The last ATT value's record, length and id: its frames that are not it whole are values too.
    private var lastATT: (record: Int, count: Int, id: Int)?
    private var loggedStreams: Set<Stream> = []
    /// The received values no line showed, by stream (`AppLogUnlogged`).
    private var unlogged = AppLogUnlogged()
    @exclusivity(unchecked) private var lastRecord = 0
    /// A line with its place on the capture's clock.
    struct Placed {
        var line: AppLogSource.Line
        var time: Int64
    }
    /// What the merger keeps of one log's lines, beside its source.
    struct Lane {
        /// Its next line, placed.
        var next: Placed?
        /// Lines that write no time (logcat brief): the next ones while the first waits for the
        /// value its bytes show (at most `untimedLookahead`), and where the last one went.
        var waiting: [AppLogSource.Line] = []
        var untimedLast: Int64?
        /// Timed lines read ahead into time order (`timedLine`), from `reorderStart`, and the
        /// latest time among them.
        var reorder: [Placed] = []
        var reorderStart = 0
        var reorderLatest: Int64 = .min
        /// Its first and last placed line's times.
        var span: ClosedRange<Int64>?
        /// Live: when its first line was seen (its offset waits at most `liveAlignWait` after).
        var seen: UInt64?
    }
    /// One per source, in the same order.
    private var lanes: [Lane] = []
    /// The time of the last event passed on from the first hold, and of the newest one held.
    @exclusivity(unchecked) private var drained: Int64 = .min
    @exclusivity(unchecked) private var newest: Int64 = .min
    /// The time of the earliest line not yet placed (`.min`: not known, `.max`: none left).
    @exclusivity(unchecked) private var nextTime: Int64 = .min
    /// Runs of 4 bytes or more that matched no value whole, with their times, from `unmatchedStart`
    /// (at most `holdLimit`, each kept for the window): a received value that holds one was logged
    /// in part, frame by frame.
    private var unmatchedRuns: [(time: Int64, bytes: [UInt8])] = []
    private var unmatchedStart = 0
    /// The capture's first and last times.
    private var captureSpan: ClosedRange<Int64>?
    /// Each log's alignment, said before its first line (after the note of what was loaded).
    private var alignments: [Event] = []
    /// Live: the last event's time, and the monotonic clock (ns) when it came.
    private var lastEvent: (time: Int64, wall: UInt64)?
    private var lastFlush: UInt64 = 0

    /// Opens the logs: one that cannot be read is said before any output.
    public init(_ options: Options) throws {
        self.options = options
        if let filter = options.filter {
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: filter)
            } catch {
                throw AppLogOpenError(message: "--app-log-filter \(filter): not a regular expression", usage: true)
            }
            keep = { l in
                if l.tag == filter { return true }
                let range = NSRange(l.text.startIndex..., in: l.text)
                return regex.firstMatch(in: l.text, range: range) != nil
            }
        } else {
            keep = { _ in true }
        }
        sources = try options.files.map { [keep] in try Self.source($0, options, keep) }
        lanes = Array(repeating: Lane(), count: sources.count)
    }

    /// `bugreport` is the capture's bugreport; a bugreport (a zip, or dumpstate's text) given by
    /// name is read for its logcat too; any other file is read as a log.
    static func source(_ file: String, _ options: Options, _ keep: @escaping (AppLogLine) -> Bool) throws
        -> AppLogSource
    {
        if file == "bugreport" {
            guard let capture = options.capture else {
                throw AppLogOpenError(
                    message:
                        "--app-log bugreport reads the logcat of the capture's bugreport: there is no capture file",
                    usage: true)
            }
            guard isBugreport(capture) else {
                throw AppLogOpenError(
                    message:
                        "--app-log bugreport reads the logcat of the capture's bugreport, and \(capture) is not one (a bugreport .zip or its dumpstate text)",
                    usage: true)
            }
            return try AppLogSource(bugreport: capture, format: options.format, keep: keep)
        }
        if isBugreport(file) { return try AppLogSource(bugreport: file, format: options.format, keep: keep) }
        let source = try AppLogSource(path: file, format: options.format, keep: keep, growing: options.live)
        if case .custom(let pattern) = options.format { try check(pattern, on: file) }
        return source
    }

    /// A pattern that reads none of a log's first lines is a mistake, said before any output.
    static func check(_ pattern: AppLogPattern, on file: String) throws {
        guard let h = FileHandle(forReadingAtPath: file), let head = try? h.read(upToCount: 65_536) else { return }
        try? h.close()
        let lines = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(200)
        guard !lines.isEmpty, !lines.contains(where: pattern.reads) else { return }
        throw AppLogOpenError(
            message:
                "\(file): --app-log-format reads none of its first \(lines.count) lines (each must match, and its time group read as a time: --app-log-time-format gives the time's layout)",
            usage: true)
    }

    /// A zip, or text that dumpstate wrote: from its first 4 KiB.
    static func isBugreport(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path), let head = try? h.read(upToCount: 4096) else { return false }
        try? h.close()
        return head.starts(with: [0x50, 0x4b, 0x03, 0x04])
            || String(decoding: head, as: UTF8.self).contains("== dumpstate")
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
            // From now on each log is read on a thread of its own, its year reference set.
            if !options.live { for s in sources { s.readOnAThread() } }
        }
        let t = e.timestamp.microseconds
        captureSpan = captureSpan.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
        let kept = e.detached()
        var id = -1
        if var v = Self.value(kept) ?? derivedFrame(kept) {
            v.hash = Self.hash(v.bytes)
            v.head = v.bytes.count >= 4 ? Self.hash(v.bytes.prefix(4)) : nil
            id = values.add(v)
            if !v.derived, case .att = kept.body { lastATT = (e.record, v.bytes.count, id) }
        }
        let bytes = kept.heldBytes
        held.append(Held(event: kept, time: t, bytes: bytes, value: id))
        newest = max(newest, t)
        // A line waiting for its value looks again.
        if lanes.contains(where: { !$0.waiting.isEmpty }) { nextTime = .min }
        heldBytes += bytes
        if options.live {
            lastEvent = (t, Self.wallNow())
            // The logs grow: look for their next lines again.
            nextTime = .min
            guard try alignLive() || full else { return }
            aligned = true
        } else if !aligned {
            let first = held[heldStart].time
            guard full || t &- first > Self.alignTime else { return }
            try align(out)
        }
        try drain(upTo: t &- Self.window, out)
        while full { try drain(upTo: held[heldStart].time, out) }
    }

    /// Live, while no record comes: the capture's clock is taken to go on with the wall clock, and
    /// the events and lines it leaves more than the window behind are said.
    public func idle(_ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try quiet(watched(pass)) }
    }

    private func quiet(_ out: (Event) -> Void) throws {
        // The entry a growing log's reader holds back for its continuation lines comes out after 0.5 s.
        let wall = Self.wallNow()
        if wall &- lastFlush >= 500_000_000 {
            lastFlush = wall
            for s in sources { s.flushPending() }
        }
        guard let last = lastEvent, try alignLive() else { return }
        aligned = true
        let now = last.time &+ Int64(clamping: (Self.wallNow() &- last.wall) / 1000)
        nextTime = .min
        try drain(upTo: now &- Self.window, out)
        // A log aligned while no record came says so before its lines.
        sayAlignments()
        while let (i, line) = try earliestLine(), line.time <= now &- Self.window {
            lanes[i].next = nil
            place(line, i, out)
        }
        nextTime = .min
        // Every line within the window of these values has been placed.
        settle(before: now &- 2 * Self.window, out)
    }

    /// The values before `t` have seen every line within the window: those no line showed are
    /// said, and the events waiting for them go on (live, every event goes on).
    private func settle(before t: Int64, _ out: (Event) -> Void) {
        prune(before: t)
        output.release(before: options.live ? .max : t, out)
    }

    /// The alignments found, before any line of their logs.
    private func sayAlignments() {
        for a in alignments { output.hold(a) }
        alignments = []
    }

    /// Live: aligns each log once 3 of its lines agree on an offset, or `liveAlignWait` after its
    /// first line came; a log with no line yet (one that appears after the follow began) holds
    /// nothing back. True when no log waits: the events may go on.
    private func alignLive() throws -> Bool {
        let now = Self.wallNow()
        let index = valueTimes()
        var waiting = false
        for (i, s) in sources.enumerated() where s.alignment == nil {
            if options.offsetMicroseconds == nil {
                let matched = try offset(of: s, index).matched
                guard !s.ahead.isEmpty else { continue }
                let seen = lanes[i].seen ?? now
                lanes[i].seen = seen
                guard matched >= 3 || now &- seen >= Self.liveAlignWait else {
                    waiting = true
                    continue
                }
            }
            try align(s, index)
        }
        return !waiting
    }

    static func wallNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The first hold is at its bound.
    private var full: Bool { held.count - heldStart > Self.holdLimit || heldBytes > Self.holdBytes }

    /// The end of the capture: everything held, then the logs' remaining lines.
    public func finish(_ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try end(watched(pass)) }
    }

    private func end(_ out: (Event) -> Void) throws {
        // Growing logs grow no more: what their readers hold comes out.
        for s in sources { s.finish() }
        // A capture with no event: the logs' lines still come out, their year this one.
        if !referenceSet { setReference(Int64(Date().timeIntervalSince1970 * 1e6)) }
        if !aligned { try align(out) }
        try drain(upTo: .max, out)
        sayAlignments()
        while let (i, line) = try earliestLine(ending: true) {
            lanes[i].next = nil
            place(line, i, out)
        }
        prune(before: .max)
        output.release(before: .max, out)
        for d in unlogged.later(window: Self.window) {
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
        for (s, span) in zip(sources, lanes.map(\.span)) {
            guard let span, span.upperBound < capture.lowerBound || span.lowerBound > capture.upperBound else {
                continue
            }
            let d = Diagnostic(
                AppLogAirDiagnostics.outside,
                "\(s.name): its lines run from \(Self.iso(span.lowerBound)) to \(Self.iso(span.upperBound)) on the capture's clock, which runs from \(Self.iso(capture.lowerBound)) to \(Self.iso(capture.upperBound)): no line falls within the capture (method \(s.alignment?.method.rawValue ?? "clock"); --app-log-offset sets the offset)",
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
    private func watched(_ out: @escaping (Event) -> Void) -> (Event) -> Void {
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

    // MARK: alignment

    /// Finds each log's offset from the held events and the lines read ahead.
    private func align(_ out: (Event) -> Void) throws {
        aligned = true
        let index = valueTimes()
        for s in sources where s.alignment == nil { try align(s, index) }
    }

    /// Finds one log's offset; said at the first event held (or the last passed on).
    private func align(_ s: AppLogSource, _ index: [[UInt8]: [Int64]]) throws {
        let at = held.count > heldStart ? held[heldStart].event : nil
        // Lines before the capture's first event are placed at its record, not at 0.
        if let at, lastRecord == 0 { lastRecord = at.record }
        let a: AppLogAlignment
        if let given = options.offsetMicroseconds {
            a = AppLogAlignment(source: s.name, offsetMicroseconds: given, matched: 0, method: .given)
        } else {
            let (offset, matched) = try self.offset(of: s, index)
            if let first = s.ahead.first, first.rawTime == nil {
                // A log that writes no time is placed line by line by its bytes: no offset.
                let shown = s.ahead.filter { $0.runs.contains { index[$0.bytes] != nil } }.count
                a = AppLogAlignment(
                    source: s.name, offsetMicroseconds: 0, matched: shown, method: .content, untimed: true)
            } else {
                a = AppLogAlignment(
                    source: s.name, offsetMicroseconds: offset, matched: matched,
                    method: matched > 0 ? .content : .clock)
            }
        }
        s.alignment = a
        alignments.append(
            Event(
                record: at?.record ?? lastRecord,
                timestamp: at?.timestamp ?? Timestamp(microseconds: drained == .min ? 0 : drained),
                direction: nil, connection: nil, isTop: true, body: .logAlignment(a)))
    }

    /// The held values of 3 bytes or more, with their times.
    private func valueTimes() -> [[UInt8]: [Int64]] {
        var index: [[UInt8]: [Int64]] = [:]
        for id in values.firstID..<values.endID where values[id].bytes.count >= 3 {
            index[Array(values[id].bytes), default: []].append(values[id].time)
        }
        return index
    }

    /// A log's offset from the lines read ahead whose bytes are values in `index`, and how many agree.
    private func offset(of s: AppLogSource, _ index: [[UInt8]: [Int64]]) throws -> (offset: Int64, matched: Int) {
        while s.ahead.count < Self.readAhead, let line = try s.next() { s.ahead.append(line) }
        // A value sent over and over says little of the clock: runs seen more than 16 times are
        // left out, and at most 100,000 candidates are weighed.
        var offsets: [Int64] = []
        for line in s.ahead where offsets.count < 100_000 {
            guard let at = line.rawTime else { continue }
            for run in line.runs where run.bytes.count >= 3 {
                guard let times = index[run.bytes], times.count <= 16 else { continue }
                for t in times { offsets.append(t &- at) }
            }
        }
        return Self.densest(offsets)
    }

    /// The offset most candidates agree on within a second, and how many: their median.
    static func densest(_ offsets: [Int64]) -> (Int64, Int) {
        let sorted = offsets.sorted()
        var best = (start: 0, count: 0)
        var start = 0
        for end in sorted.indices {
            while sorted[end] &- sorted[start] > 1_000_000 { start += 1 }
            if end - start + 1 > best.count { best = (start, end - start + 1) }
        }
        guard best.count > 0 else { return (0, 0) }
        return (sorted[best.start + best.count / 2], best.count)
    }

    // MARK: merging

    /// Passes on the held events up to `limit`, each after the log lines before it.
    private func drain(upTo limit: Int64, _ out: (Event) -> Void) throws {
        while heldStart < held.count, held[heldStart].time <= limit {
            let t = held[heldStart].time
            // The timeline's first line, the note of what was loaded, stays first.
            var leads = false
            if drained == .min, case .note = held[heldStart].event.body { leads = true }
            if !leads {
                // Each log's alignment comes before its lines.
                sayAlignments()
                // The next line's time is kept: most events come before it, and are passed on at once.
                while nextTime <= t, let (i, line) = try earliestLine(), line.time <= t {
                    lanes[i].next = nil
                    place(line, i, out)
                    nextTime = .min
                }
                if nextTime == .min { nextTime = try earliestLine()?.1.time ?? .max }
            }
            // Moved out, not copied: no retain and release of the event's parts.
            var h = Held(event: Self.spent, time: 0, bytes: 0, value: -1)
            swap(&h, &held[heldStart])
            heldStart += 1
            heldBytes -= h.bytes
            drained = t
            lastRecord = h.event.record
            let (record, id) = (h.event.record, h.value)
            let slot = output.hold(h.event, time: t, bytes: h.bytes)
            if id >= 0 {
                values[id].slot = slot
                drainedEnd = id + 1
            } else if drainedEnd > values.firstID, values[drainedEnd - 1].record == record {
                // Said after the last event of its record (the frame its value holds), not between them.
                values[drainedEnd - 1].slot = slot
            }
            settle(before: t &- Self.window, out)
        }
        if heldStart > 1024 && heldStart * 2 > held.count {
            held.removeFirst(heldStart)
            heldStart = 0
        }
    }

    /// What a passed-on slot of the first hold is left holding.
    static let spent = Event(
        record: 0, timestamp: Timestamp(microseconds: 0), direction: nil, connection: nil, isTop: false,
        body: .note(category: "", text: ""))

    /// The earliest next line of all logs, on the capture's clock (`rawTime` shifted, or placed by
    /// its bytes when it writes no time).
    private func earliestLine(ending: Bool = false) throws -> (Int, Placed)? {
        var best: (Int, Placed)?
        // A live log not aligned yet (no line agreed on its offset) waits.
        for (i, s) in sources.enumerated() where s.alignment != nil {
            if lanes[i].next == nil { lanes[i].next = try timedLine(i) }
            if lanes[i].next == nil, let line = try lanes[i].waiting.first ?? s.take() {
                if !lanes[i].waiting.isEmpty { lanes[i].waiting.removeFirst() }
                if let t = line.rawTime {
                    lanes[i].next = Placed(line: line, time: t &+ (s.alignment?.offsetMicroseconds ?? 0))
                } else if let t = try untimedTime(line, i, ending: ending) {
                    lanes[i].next = Placed(line: line, time: t)
                    lanes[i].untimedLast = t
                } else {
                    lanes[i].waiting.insert(line, at: 0)
                }
            }
            if let l = lanes[i].next, best.map({ l.time < $0.1.time }) ?? true { best = (i, l) }
        }
        return best
    }

    /// Lines whose times go back a little (threads, logcat's buffers interleaved) come out in time
    /// order: a log is read ahead until 1 s past its earliest line not yet placed, at most 1,024 lines.
    static let reorderSpan: Int64 = 1_000_000
    static let reorderLines = 1024

    /// A timed log's next line in time order (equal times in file order); nil when it has none
    /// now, or its next line writes no time (it waits in `waiting`).
    private func timedLine(_ i: Int) throws -> Placed? {
        let s = sources[i]
        while lanes[i].waiting.isEmpty, lanes[i].reorder.count - lanes[i].reorderStart < Self.reorderLines,
            lanes[i].reorderStart == lanes[i].reorder.count
                || lanes[i].reorderLatest &- lanes[i].reorder[lanes[i].reorderStart].time < Self.reorderSpan,
            let line = try s.take()
        {
            guard let raw = line.rawTime else {
                lanes[i].waiting.append(line)
                break
            }
            let p = Placed(line: line, time: raw &+ (s.alignment?.offsetMicroseconds ?? 0))
            lanes[i].reorderLatest = max(lanes[i].reorderLatest, p.time)
            var at = lanes[i].reorder.count
            while at > lanes[i].reorderStart, lanes[i].reorder[at - 1].time > p.time { at -= 1 }
            lanes[i].reorder.insert(p, at: at)
        }
        guard lanes[i].reorderStart < lanes[i].reorder.count else { return nil }
        let p = lanes[i].reorder[lanes[i].reorderStart]
        lanes[i].reorderStart += 1
        if lanes[i].reorderStart > 512 {
            lanes[i].reorder.removeFirst(lanes[i].reorderStart)
            lanes[i].reorderStart = 0
        }
        return p
    }

    /// How long a line of a log with no times waits for the value its bytes show, and how many
    /// lines after it are read meanwhile.
    static let untimedWait: Int64 = 10_000_000
    static let untimedLookahead = 32

    /// Where a line that writes no time goes: at the first value its bytes are (or begin), at or
    /// after the log's last line. A line with no bytes goes right after the line before it, and so
    /// does one whose value has not come while a line after it has found its own (or within
    /// `untimedWait` of capture time). Nil: it waits for more events.
    private func untimedTime(_ line: AppLogSource.Line, _ i: Int, ending: Bool) throws -> Int64? {
        let after = lanes[i].untimedLast ?? held.first.map(\.time) ?? drained
        let now = max(after, drained)
        guard line.runs.contains(where: { $0.bytes.count >= 3 }) else { return now }
        if let t = shown(line, after: after) { return t }
        if ending || newest &- after > Self.untimedWait { return now }
        // A line after it found its value: this one's never came.
        while lanes[i].waiting.count < Self.untimedLookahead, let next = try sources[i].take() {
            lanes[i].waiting.append(next)
        }
        return lanes[i].waiting.contains { shown($0, after: after) != nil } ? now : nil
    }

    /// The time of the first value at or after `after` that a run of the line is (or begins, from 8 bytes).
    private func shown(_ line: AppLogSource.Line, after: Int64) -> Int64? {
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

    /// One log line on the timeline, matched to the packet that carried its bytes.
    private func place(_ placed: Placed, _ index: Int, _ out: (Event) -> Void) {
        let s = sources[index]
        let (l, at) = (placed.line, placed.time)
        lanes[index].span = lanes[index].span.map { min($0.lowerBound, at)...max($0.upperBound, at) } ?? at...at
        var matched: Int?
        var sentMatch: Int?
        var unsent: HexRun?
        for run in l.runs where run.bytes.count >= 2 {
            if let v = match(run, at: at) {
                matched = matched ?? v.record
                if v.direction == .sent { sentMatch = sentMatch ?? v.record }
            } else {
                // Perhaps one frame of a value holding several: kept for the values that leave the
                // window (at most `holdLimit`; past that, such a value may be said not logged).
                if run.bytes.count >= 4, run.direction != .sent, unmatchedRuns.count - unmatchedStart < Self.holdLimit {
                    unmatchedRuns.append((at, run.bytes))
                }
                // Only where the values of its whole window are still known: not for a line that
                // came late (a live log written behind the capture, a time going back in the file).
                if run.direction == .sent, run.isComplete, unsent == nil, at &- Self.window >= prunedBefore {
                    unsent = run
                }
            }
        }
        // However many lines come before the next event, what they decide goes on.
        defer { settle(before: at &- Self.window, out) }
        let time = Timestamp(microseconds: at)
        // A line the filter hides still says what it disagrees with.
        if l.kept {
            let entry = AppLogEntry(
                source: s.name, line: l.line.number, level: l.line.level, tag: l.line.tag, message: l.line.message,
                matchesRecord: matched)
            output.hold(
                Event(
                    record: lastRecord, timestamp: time, direction: nil, connection: nil, isTop: true, body: .log(entry)
                ))
        }
        for d in s.problems.removeValue(forKey: l.line.number) ?? [] {
            output.hold(
                Event(
                    record: lastRecord, timestamp: time, direction: nil, connection: nil, isTop: true,
                    body: .diagnostic(d)))
        }
        // The log says this command went before one it logged earlier: the air says otherwise.
        if let r = sentMatch, let last = s.lastSent, r < last.record {
            let d = Diagnostic(
                AppLogAirDiagnostics.order,
                "\(s.name):\(last.line) was logged before line \(l.line.number), but its bytes went out after them: #\(last.record) after #\(r)",
                fields: [
                    ("source", .string(s.name)), ("line", .int(l.line.number)), ("earlier_line", .int(last.line)),
                    ("air_record", .int(r)), ("earlier_air_record", .int(last.record)),
                ])
            output.hold(
                Event(record: r, timestamp: time, direction: .sent, connection: nil, isTop: true, body: .diagnostic(d)))
        }
        if let r = sentMatch, r >= s.lastSent?.record ?? 0 { s.lastSent = (r, l.line.number) }
        guard let unsent else { return }
        let d = Diagnostic(
            AppLogAirDiagnostics.txNotOnAir,
            "\(s.name):\(l.line.number) logs \(unsent.bytes.count) bytes sent (\(Hex.string(unsent.bytes.prefix(16)))\(unsent.bytes.count > 16 ? "…" : "")) that no packet carried within \(Self.window / 1_000_000) s",
            fields: [("source", .string(s.name)), ("line", .int(l.line.number)), ("bytes", .bytes(unsent.bytes))])
        output.hold(
            Event(
                record: lastRecord, timestamp: time, direction: .sent, connection: nil, isTop: true,
                body: .diagnostic(d)))
    }

    /// The nearest value within the window whose bytes are the run's, or begin with them (a line
    /// that shows the first 8 bytes or more, or an elided value's head), in the run's direction
    /// when it says one.
    private func match(_ run: HexRun, at t: Int64) -> (record: Int, direction: Direction?)? {
        let headed = run.bytes.count >= 8 || (!run.isComplete && run.bytes.count >= 4)
        let sent = run.direction.map { $0 == .sent }
        var best: (id: Int, distance: UInt64, whole: Bool, fresh: Bool)?
        func consider(_ id: Int, whole: Bool) {
            let v = values[id]
            let distance = (v.time &- t).magnitude
            guard distance <= UInt64(Self.window), sent == nil || v.direction == nil || sent == (v.direction == .sent),
                whole
                    ? v.bytes.elementsEqual(run.bytes)
                    : v.bytes.count > run.bytes.count && v.bytes.starts(with: run.bytes)
            else { return }
            // A value that is the run's bytes whole is taken before one that only begins with them, and
            // one no line showed yet before one a line did: two lines of a repeated value show one
            // each, even when the log's times are too coarse to tell which is nearer.
            let fresh = !v.matched
            if let b = best,
                (b.whole && !whole)
                    || (b.whole == whole && (b.fresh && !fresh || b.fresh == fresh && b.distance <= distance))
            {
                return
            }
            best = (id, distance, whole, fresh)
        }
        // Only the values whose hashes are the run's are looked at.
        for id in values.ids(whole: Self.hash(run.bytes)) { consider(id, whole: true) }
        if headed, best == nil {
            for id in values.ids(head: Self.hash(run.bytes.prefix(4))) { consider(id, whole: false) }
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

    /// FNV-1a: the bytes of a value, hashed once as it is held.
    private static func hash(_ bytes: some Collection<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h)
    }

    /// Whether a line within the window showed part of `v` (one of the frames it holds).
    private func logsPart(of v: Value) -> Bool {
        unmatchedRuns[unmatchedStart...].contains { r in
            (r.time &- v.time).magnitude <= UInt64(Self.window) && r.bytes.count <= v.bytes.count
                && (0...(v.bytes.count - r.bytes.count)).contains {
                    v.bytes.dropFirst($0).prefix(r.bytes.count).elementsEqual(r.bytes)
                }
        }
    }

    /// Values older than `limit` leave the window: one received on a stream the app logs that no
    /// line matched is said right after its event, which waits in the second hold.
    private func prune(before limit: Int64) {
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
                fields: [("bytes", .bytes(Array(v.bytes))), ("detected_record", .int(lastRecord))])
            output.follow(
                v.slot,
                Event(
                    record: v.record, timestamp: Timestamp(microseconds: v.time), direction: .received, connection: nil,
                    isTop: true, body: .diagnostic(d)))
        }
        // A run older than the window before `limit` can show no value still in it.
        while unmatchedStart < unmatchedRuns.count, unmatchedRuns[unmatchedStart].time < limit &- Self.window {
            unmatchedStart += 1
        }
        if unmatchedStart > 1024 && unmatchedStart * 2 > unmatchedRuns.count {
            unmatchedRuns.removeFirst(unmatchedStart)
            unmatchedStart = 0
        }
    }

    /// The bytes an event carried that an app may log: ATT values, joined long values, A5 frames
    /// on other channels (EA sessions, RFCOMM), data no decoder took (a serial protocol on RFCOMM).
    static func value(_ e: Event) -> Value? {
        let t = e.timestamp.microseconds
        switch e.body {
        case .att(let a):
            // What an app writes and is given: writes, notifications, indications, read responses;
            // not a Prepare Write Response's echo of its own bytes.
            guard Self.valueOpcodes.contains(a.opcode.rawValue), let v = a.value, !v.isEmpty, let h = a.handle
            else { return nil }
            return Value(
                record: e.record, time: t, bytes: v, direction: e.direction,
                stream: Stream(connection: e.connection, handle: h))
        case .gattValue(let g):
            return Value(
                record: e.record, time: t, bytes: g.value[...], direction: e.direction,
                stream: Stream(connection: e.connection, handle: g.handle))
        case .frame(let f) where f.transport != .att && f.isA5 && f.frame.payload.count == f.frame.payloadCount:
            // An A5 frame of an EA session, an RFCOMM or a credit-based channel: its wire bytes,
            // as an app logs what it writes to the session (over ATT, the value holds them).
            let bytes = FrameFormat.a5.encode(
                command: f.frame.command, sequence: f.frame.sequence ?? 0, flags: f.frame.flags ?? 0,
                version: f.frame.version ?? 1, payload: f.frame.payload, fragment: f.frame.fragment,
                messageChecksum: f.frame.checksum)
            let channel = f.eaSession.map { "EA session \($0)" } ?? f.rfcommChannel.map { "RFCOMM channel \($0)" }
            return Value(
                record: e.record, time: t, bytes: bytes[...], direction: e.direction,
                stream: Stream(connection: e.connection, what: channel ?? f.transport.rawValue))
        case .undecoded(let u) where !u.bytes.isEmpty:
            return Value(
                record: e.record, time: t, bytes: u.bytes[...], direction: e.direction,
                stream: Stream(connection: e.connection, what: u.what))
        default:
            return nil
        }
    }

    /// An A5 frame over ATT that its record's value is not, whole: one of several frames in a
    /// notification, or one an app wrote in several writes (as it logs it before cutting it to the MTU).
    private func derivedFrame(_ e: Event) -> Value? {
        guard case .frame(let f) = e.body, f.transport == .att, f.isA5, f.frame.payload.count == f.frame.payloadCount
        else { return nil }
        let whole = lastATT.map { $0.record == e.record && $0.count == f.frame.length } ?? false
        guard !whole else { return nil }
        let bytes = FrameFormat.a5.encode(
            command: f.frame.command, sequence: f.frame.sequence ?? 0, flags: f.frame.flags ?? 0,
            version: f.frame.version ?? 1, payload: f.frame.payload, fragment: f.frame.fragment,
            messageChecksum: f.frame.checksum)
        var v = Value(
            record: e.record, time: e.timestamp.microseconds, bytes: bytes[...], direction: e.direction,
            stream: Stream(connection: e.connection, handle: f.attHandle))
        v.derived = true
        v.parent = lastATT.flatMap { $0.record == e.record ? $0.id : nil }
        return v
    }

    /// Read Response, Read Blob Response, Write Request, Write Command, Signed Write Command,
    /// Handle Value Notification, Indication (Core Vol 3 Part F §3.4).
    static let valueOpcodes: Set<UInt8> = [0x0b, 0x0d, 0x12, 0x52, 0xd2, 0x1b, 0x1d]
}
