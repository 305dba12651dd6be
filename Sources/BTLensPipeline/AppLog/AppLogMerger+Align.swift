import BTLensAppLog
import BTLensCore
import BTLensDissect

extension AppLogMerger {
    /// Finds each log's offset from the held events and the lines read ahead.
    func align() throws {
        aligned = true
        let values = air.valueTimes
        for i in lanes.indices where lanes[i].alignment == nil { try align(i, values) }
    }

    /// Finds log `i`'s offset (`AppLogClock`); said at the first event held (or the last passed on).
    func align(_ i: Int, _ values: AppLogClock.Values) throws {
        let at = held.count > heldStart ? held[heldStart].event : nil
        // Lines before the capture's first event are placed at its record, not at 0.
        if let at, lastRecord == 0 { lastRecord = at.record }
        let s = sources[i]
        if options.offsetMicroseconds == nil { try readAhead(s) }
        var a = try better(
            AppLogClock.alignment(source: s.name, lines: s.ahead, values: values, given: options.offsetMicroseconds), i)
        if a.method != .given, !a.wholeCapture, s.aheadBytes >= aheadShare { a.readAheadLines = s.ahead.count }
        lanes[i].alignment = a
        alignments.append(
            Event(
                record: at?.record ?? lastRecord,
                timestamp: at?.timestamp ?? Timestamp(microseconds: drained == .min ? 0 : drained),
                direction: nil, connection: nil, isTop: true, body: .logAlignment(a)))
    }

    /// Reads a log's first lines (at most `readAhead`, and its share of `readAheadBytes`), that its
    /// offset is found from.
    func readAhead(_ s: AppLogSource) throws {
        while s.ahead.count < AppLogBounds.readAhead, s.aheadBytes < aheadShare, let line = try s.next() {
            s.ahead.append(line)
            s.aheadBytes += line.heldBytes
        }
    }

    /// Each log's share of the bytes read ahead.
    var aheadShare: Int { AppLogBounds.readAheadBytes / max(sources.count, 1) }

    /// The alignments found, before any line of their logs.
    func sayAlignments() {
        for a in alignments { output.hold(a) }
        alignments = []
    }
}
