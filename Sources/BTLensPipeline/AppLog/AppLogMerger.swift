import BTLensAppLog
import BTLensCore
import BTLensDissect
import Foundation

public enum AppLogAirDiagnostics {
    public static let txNotOnAir = DiagnosticKind(
        "app.tx.not_on_air", .warning,
        "A log line shows bytes the app sent that no packet carried within the matching window: they never left the phone, or left changed."
    )
    public static let rxNotLogged = DiagnosticKind(
        "app.rx.not_logged", .note,
        "A value the phone received, on a stream whose values the app logs, that no log line shows within the matching window."
    )
    public static let order = DiagnosticKind(
        "app.order", .warning,
        "The log and the air disagree on the order of two commands: the one logged first went out second.")
    public static let outside = DiagnosticKind(
        "app.log.outside", .warning,
        "No line of a log falls within the capture's time on the capture's clock: the log is of another time, or its offset is wrong."
    )
    public static let all = [txNotOnAir, rxNotLogged, order, outside]
}

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
        public var offsetMilliseconds: Int64?
        /// `--app-log-filter`: a tag, or a regular expression searched in the line.
        public var filter: String?
        /// `follow`: the logs grow; events are said as soon as the window has passed, with no
        /// second hold, and the offset as soon as every log has 3 lines agreeing on it (or after `liveAlignWait`).
        public var live: Bool
        public init(
            files: [String], format: AppLogFormat? = nil, offsetMilliseconds: Int64? = nil, filter: String? = nil,
            live: Bool = false
        ) {
            self.files = files
            self.format = format
            self.offsetMilliseconds = offsetMilliseconds
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
        /// The hashes of its bytes and of its first 4, kept for the counts.
        var hash = 0
        var head: Int?
        /// Where its event waits in the second hold (`Output.slot`).
        var slot = 0
    }

    private let options: Options
    private let keep: (AppLogLine) -> Bool
    private var sources: [AppLogSource] = []
    private var aligned = false
    /// The most severe diagnostic the merger said (for `--fail-on`).
    public private(set) var worstSeverity: Severity?
    private var yearSet = false
    /// The first hold: events, each with the value a line may show.
    private var held: [(event: Event, value: Value?)] = []
    private var heldStart = 0
    private var heldBytes = 0
    /// The second hold.
    private var output = AppLogHold()
    private var recent: [Value] = []
    private var recentStart = 0
    private var loggedStreams: Set<Stream> = []
    private var lastRecord = 0
    /// The next line of each source, on the capture's clock.
    private var nextLines: [AppLogSource.Line?] = []
    /// The time of the earliest line not yet placed (`.min`: not known, `.max`: none left).
    private var nextTime: Int64 = .min
    /// Runs of 4 bytes or more that matched no value whole, with their times (at most `holdLimit`):
    /// a received value that holds one was logged in part, frame by frame.
    private var unmatchedRuns: [(time: Int64, bytes: [UInt8])] = []
    /// The values in the window, counted by hash of their bytes and of their first 4: a line whose
    /// bytes are none of them, nor begin any, is matched without looking at any value.
    private var wholes: [Int: Int] = [:]
    private var heads: [Int: Int] = [:]
    /// The capture's first and last times, and each log's first and last placed line's.
    private var captureSpan: ClosedRange<Int64>?
    private var lineSpans: [ClosedRange<Int64>?] = []
    /// Each log's alignment, said after the capture's first event (the note of what was loaded).
    private var alignments: [Event] = []
    /// Live: the last event's time, and the monotonic clock (ns) when it came and when the first did.
    private var lastEvent: (time: Int64, wall: UInt64)?
    private var firstWall: UInt64?

    /// Opens the logs: one that cannot be read is said before any output.
    public init(_ options: Options) throws {
        self.options = options
        if let filter = options.filter {
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: filter)
            } catch {
                throw AppLogOpenError(message: "--app-log-filter \(filter): not a regular expression")
            }
            keep = { l in
                if l.tag == filter { return true }
                let range = NSRange(l.text.startIndex..., in: l.text)
                return regex.firstMatch(in: l.text, range: range) != nil
            }
        } else {
            keep = { _ in true }
        }
        sources = try options.files.map { [keep] in try AppLogSource(path: $0, format: options.format, keep: keep) }
        nextLines = Array(repeating: nil, count: sources.count)
        lineSpans = Array(repeating: nil, count: sources.count)
    }

    /// One event of the capture: held, then passed on with the log lines before it.
    public func event(_ e: Event, _ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try take(e, watched(pass)) }
    }

    private func take(_ e: Event, _ out: (Event) -> Void) throws {
        if !yearSet { setYear(Self.year(e.timestamp)) }
        let t = e.timestamp.microseconds
        captureSpan = captureSpan.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
        let kept = e.detached()
        var value = Self.value(kept)
        if var v = value {
            v.hash = Self.hash(v.bytes)
            v.head = v.bytes.count >= 4 ? Self.hash(v.bytes.prefix(4)) : nil
            count(v, by: 1)
            value = v
        }
        held.append((kept, value))
        heldBytes += kept.heldBytes
        if options.live {
            let now = Self.wallNow()
            lastEvent = (t, now)
            firstWall = firstWall ?? now
            // The logs grow: look for their next lines again.
            nextTime = .min
        }
        if !aligned {
            let first = held[heldStart].event.timestamp.microseconds
            guard try full || t &- first > Self.alignTime || (options.live && readyToAlign()) else { return }
            try align(out)
        }
        try drain(upTo: t &- Self.window, out)
        while full { try drain(upTo: held[heldStart].event.timestamp.microseconds, out) }
    }

    /// Live, while no record comes: the capture's clock is taken to go on with the wall clock, and
    /// the events and lines it leaves more than the window behind are said.
    public func idle(_ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try quiet(watched(pass)) }
    }

    private func quiet(_ out: (Event) -> Void) throws {
        guard let last = lastEvent else { return }
        if !aligned {
            guard try readyToAlign() else { return }
            try align(out)
        }
        let now = last.time &+ Int64(clamping: (Self.wallNow() &- last.wall) / 1000)
        nextTime = .min
        try drain(upTo: now &- Self.window, out)
        while let (i, line) = try earliestLine(), line.rawTime <= now &- Self.window {
            nextLines[i] = nil
            place(line, i, out)
        }
        nextTime = .min
        // Every line within the window of these values has been placed.
        prune(before: now &- 2 * Self.window)
        output.release(before: .max, out)
    }

    /// Live: whether every log has 3 lines agreeing on an offset, or has waited long enough.
    private func readyToAlign() throws -> Bool {
        if options.offsetMilliseconds != nil { return true }
        if let w = firstWall, Self.wallNow() &- w >= Self.liveAlignWait { return true }
        let index = valueTimes()
        for s in sources where try offset(of: s, index).matched < 3 { return false }
        return true
    }

    static func wallNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The first hold is at its bound.
    private var full: Bool { held.count - heldStart > Self.holdLimit || heldBytes > Self.holdBytes }

    /// The end of the capture: everything held, then the logs' remaining lines.
    public func finish(_ pass: (Event) -> Void) throws {
        try withoutActuallyEscaping(pass) { pass in try end(watched(pass)) }
    }

    private func end(_ out: (Event) -> Void) throws {
        // A capture with no event: the logs' lines still come out, their year this one.
        if !yearSet { setYear(Self.year(Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1e6)))) }
        if !aligned { try align(out) }
        try drain(upTo: .max, out)
        for a in alignments { output.hold(a) }
        alignments = []
        while let (i, line) = try earliestLine() {
            nextLines[i] = nil
            place(line, i, out)
        }
        prune(before: .max)
        output.release(before: .max, out)
        outside(out)
    }

    /// A log none of whose lines falls within the capture's time is said, once, at the end.
    private func outside(_ out: (Event) -> Void) {
        guard let capture = captureSpan else { return }
        for (s, span) in zip(sources, lineSpans) {
            guard let span, span.upperBound < capture.lowerBound || span.lowerBound > capture.upperBound else {
                continue
            }
            let d = Diagnostic(
                AppLogAirDiagnostics.outside,
                "\(s.name): its lines run from \(Self.clock(span.lowerBound)) to \(Self.clock(span.upperBound)) on the capture's clock, which runs from \(Self.clock(capture.lowerBound)) to \(Self.clock(capture.upperBound)): no line falls within the capture (method \(s.alignment?.method.rawValue ?? "clock"); --app-log-offset sets the offset)",
                fields: [
                    ("source", .string(s.name)), ("first_line_time", .decimal(span.lowerBound, scale: 6)),
                    ("last_line_time", .decimal(span.upperBound, scale: 6)),
                ])
            out(
                Event(
                    record: lastRecord, timestamp: Timestamp(microseconds: capture.upperBound), direction: nil,
                    connection: nil, isTop: true, body: .diagnostic(d)))
        }
    }

    /// A time as UTC date and time, to the millisecond.
    static func clock(_ t: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return f.string(from: Date(timeIntervalSince1970: Double(t) / 1_000_000)) + " UTC"
    }

    /// `out`, with the severity of what the merger says kept.
    private func watched(_ out: @escaping (Event) -> Void) -> (Event) -> Void {
        { [self] e in
            if case .diagnostic(let d) = e.body, worstSeverity.map({ d.severity > $0 }) ?? true {
                worstSeverity = d.severity
            }
            out(e)
        }
    }

    /// A line that writes no year takes the capture's.
    private func setYear(_ year: Int) {
        for s in sources { s.year = year }
        yearSet = true
    }

    // MARK: alignment

    /// Finds each log's offset from the held events and the lines read ahead.
    private func align(_ out: (Event) -> Void) throws {
        aligned = true
        let index = valueTimes()
        let at = held.count > heldStart ? held[heldStart].event : nil
        // Lines before the capture's first event are placed at its record, not at 0.
        if let at, lastRecord == 0 { lastRecord = at.record }
        for s in sources {
            if let ms = options.offsetMilliseconds {
                s.alignment = AppLogAlignment(
                    source: s.name, offsetMicroseconds: ms.saturatingMultiplying(by: 1000), matched: 0, method: .given)
            } else {
                let (offset, matched) = try self.offset(of: s, index)
                s.alignment = AppLogAlignment(
                    source: s.name, offsetMicroseconds: offset, matched: matched,
                    method: matched > 0 ? .content : .clock)
            }
            if let a = s.alignment {
                alignments.append(
                    Event(
                        record: at?.record ?? 0, timestamp: at?.timestamp ?? Timestamp(microseconds: 0), direction: nil,
                        connection: nil, isTop: true, body: .logAlignment(a)))
            }
        }
    }

    /// The held values of 3 bytes or more, with their times.
    private func valueTimes() -> [[UInt8]: [Int64]] {
        var index: [[UInt8]: [Int64]] = [:]
        for (_, value) in held[heldStart...] {
            if let v = value, v.bytes.count >= 3 { index[Array(v.bytes), default: []].append(v.time) }
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
            for run in line.runs where run.bytes.count >= 3 {
                guard let times = index[run.bytes], times.count <= 16 else { continue }
                for t in times { offsets.append(t &- line.rawTime) }
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
        while heldStart < held.count, held[heldStart].event.timestamp.microseconds <= limit {
            let t = held[heldStart].event.timestamp.microseconds
            // The next line's time is kept: most events come before it, and are passed on at once.
            while nextTime <= t, let (i, line) = try earliestLine(), line.rawTime <= t {
                nextLines[i] = nil
                place(line, i, out)
                nextTime = .min
            }
            if nextTime == .min { nextTime = try earliestLine()?.1.rawTime ?? .max }
            let (e, value) = held[heldStart]
            held[heldStart] = (Self.spent, nil)
            heldStart += 1
            heldBytes -= e.heldBytes
            lastRecord = e.record
            let slot = output.hold(e)
            for a in alignments { output.hold(a) }
            alignments = []
            if var v = value {
                v.slot = slot
                recent.append(v)
            } else if recentStart < recent.count, recent[recent.count - 1].record == e.record {
                // Said after the last event of its record (the frame its value holds), not between them.
                recent[recent.count - 1].slot = slot
            }
            prune(before: t &- Self.window)
            output.release(before: options.live ? .max : t &- Self.window, out)
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

    /// The earliest next line of all logs, on the capture's clock (`rawTime` shifted).
    private func earliestLine() throws -> (Int, AppLogSource.Line)? {
        var best: (Int, AppLogSource.Line)?
        for (i, s) in sources.enumerated() {
            if nextLines[i] == nil {
                if var line = try s.take() {
                    line.rawTime = line.rawTime &+ (s.alignment?.offsetMicroseconds ?? 0)
                    nextLines[i] = line
                }
            }
            if let l = nextLines[i], best.map({ l.rawTime < $0.1.rawTime }) ?? true { best = (i, l) }
        }
        return best
    }

    /// One log line on the timeline, matched to the packet that carried its bytes.
    private func place(_ l: AppLogSource.Line, _ index: Int, _ out: (Event) -> Void) {
        let s = sources[index]
        lineSpans[index] =
            lineSpans[index].map { min($0.lowerBound, l.rawTime)...max($0.upperBound, l.rawTime) }
            ?? l.rawTime...l.rawTime
        var matched: Int?
        var sentMatch: Int?
        var unsent: HexRun?
        for run in l.runs where run.bytes.count >= 2 {
            if let v = match(run, at: l.rawTime) {
                matched = matched ?? v.record
                if v.direction == .sent { sentMatch = sentMatch ?? v.record }
            } else {
                // Perhaps one frame of a value holding several: kept for the values that leave the window.
                if run.bytes.count >= 4, run.direction != .sent {
                    if unmatchedRuns.count >= Self.holdLimit {
                        unmatchedRuns.removeAll { $0.time < l.rawTime &- 2 * Self.window }
                    }
                    if unmatchedRuns.count < Self.holdLimit { unmatchedRuns.append((l.rawTime, run.bytes)) }
                }
                if run.direction == .sent, run.isComplete, unsent == nil { unsent = run }
            }
        }
        guard l.kept else { return }
        let time = Timestamp(microseconds: l.rawTime)
        let entry = AppLogEntry(
            source: s.name, line: l.line.number, level: l.line.level, tag: l.line.tag, message: l.line.message,
            matchesRecord: matched)
        output.hold(
            Event(record: lastRecord, timestamp: time, direction: nil, connection: nil, isTop: true, body: .log(entry)))
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
        /// Where a value is: in `recent` (index), or in `held` (index).
        enum Place {
            case recent(Int)
            case held(Int)
        }
        // Most lines show bytes no value in the window is or begins with: said by the counts, with no scan.
        let whole = wholes[Self.hash(run.bytes)] != nil
        let head =
            (run.bytes.count >= 8 || (!run.isComplete && run.bytes.count >= 4))
            && heads[Self.hash(run.bytes.prefix(4))] != nil
        guard whole || head else { return nil }
        var best: (place: Place, distance: UInt64, whole: Bool)?
        func consider(_ v: Value, _ place: Place) {
            let distance = (v.time &- t).magnitude
            let sent = run.direction.map { $0 == .sent }
            guard distance <= UInt64(Self.window), sent == nil || v.direction == nil || sent == (v.direction == .sent)
            else { return }
            let isWhole = whole && v.bytes.elementsEqual(run.bytes)
            guard isWhole || (head && v.bytes.count > run.bytes.count && v.bytes.starts(with: run.bytes)) else {
                return
            }
            // A value that is the run's bytes whole is taken before one that only begins with them.
            if let b = best, (b.whole && !isWhole) || (b.whole == isWhole && b.distance <= distance) { return }
            best = (place, distance, isWhole)
        }
        for i in recentStart..<recent.count { consider(recent[i], .recent(i)) }
        for i in heldStart..<held.count {
            guard held[i].event.timestamp.microseconds &- t <= Self.window else { break }
            if let v = held[i].value { consider(v, .held(i)) }
        }
        switch best?.place {
        case .recent(let i)?:
            recent[i].matched = true
            loggedStreams.insert(recent[i].stream)
            return (recent[i].record, recent[i].direction)
        case .held(let i)?:
            held[i].value?.matched = true
            guard let v = held[i].value else { return nil }
            loggedStreams.insert(v.stream)
            return (v.record, v.direction)
        case nil:
            return nil
        }
    }

    private func count(_ v: Value, by n: Int) {
        let c = (wholes[v.hash] ?? 0) + n
        wholes[v.hash] = c == 0 ? nil : c
        guard let h = v.head else { return }
        let d = (heads[h] ?? 0) + n
        heads[h] = d == 0 ? nil : d
    }

    /// FNV-1a: the bytes of a value, hashed once as it is held.
    private static func hash(_ bytes: some Collection<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h)
    }

    /// Whether a line within the window showed part of `v` (one of the frames it holds).
    private func logsPart(of v: Value) -> Bool {
        unmatchedRuns.contains { r in
            (r.time &- v.time).magnitude <= UInt64(Self.window) && r.bytes.count <= v.bytes.count
                && (0...(v.bytes.count - r.bytes.count)).contains {
                    v.bytes.dropFirst($0).prefix(r.bytes.count).elementsEqual(r.bytes)
                }
        }
    }

    /// Values older than `limit` leave the window: one received on a stream the app logs that no
    /// line matched is said right after its event, which waits in the second hold.
    private func prune(before limit: Int64) {
        while recentStart < recent.count, recent[recentStart].time < limit {
            let v = recent[recentStart]
            recentStart += 1
            count(v, by: -1)
            guard v.direction == .received, !v.matched, loggedStreams.contains(v.stream), !logsPart(of: v) else {
                continue
            }
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
        if recentStart > 1024 && recentStart * 2 > recent.count {
            recent.removeFirst(recentStart)
            recentStart = 0
        }
    }

    /// The bytes an event carried that an app may log: ATT values, joined long values, data no
    /// decoder took (a serial protocol on RFCOMM).
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
        case .undecoded(let u) where !u.bytes.isEmpty:
            return Value(
                record: e.record, time: t, bytes: u.bytes[...], direction: e.direction,
                stream: Stream(connection: e.connection, what: u.what))
        default:
            return nil
        }
    }

    /// Read Response, Read Blob Response, Write Request, Write Command, Signed Write Command,
    /// Handle Value Notification, Indication (Core Vol 3 Part F §3.4).
    static let valueOpcodes: Set<UInt8> = [0x0b, 0x0d, 0x12, 0x52, 0xd2, 0x1b, 0x1d]

    static func year(_ t: Timestamp) -> Int {
        let seconds = Double(t.microseconds) / 1_000_000
        let date = Date(timeIntervalSince1970: seconds)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.component(.year, from: date)
    }
}
