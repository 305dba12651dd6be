import BTLensAppLog
import BTLensCore
import BTLensDissect

/// The lines merged with the events: each event passed on after the lines before it.
extension AppLogMerger {
    /// Passes on the held events up to `limit`, each after the log lines before it.
    func drain(upTo limit: Int64, _ out: (Event) -> Void) throws {
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
                    lanes[i].advance()
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
            let record = h.event.record
            let slot = output.hold(h.event, time: t, bytes: h.bytes)
            air.passed(record: record, value: h.value, slot: slot)
            settle(before: t &- Self.window, out)
        }
        if heldStart > 1024 && heldStart * 2 > held.count {
            held.removeFirst(heldStart)
            heldStart = 0
        }
    }

    /// What a passed-on slot of a hold is left holding.
    static let spent = Event(
        record: 0, timestamp: Timestamp(microseconds: 0), direction: nil, connection: nil, isTop: false,
        body: .note(category: "", text: ""))

    /// The earliest next line of all logs, on the capture's clock. A live log not aligned yet (no
    /// line agreed on its offset) waits.
    func earliestLine(ending: Bool = false) throws -> (Int, AppLogLane.Placed)? {
        let capture = AppLogLane.Capture(firstHeld: held.first?.time, drained: drained, newest: newest, ending: ending)
        var best: (Int, AppLogLane.Placed)?
        for i in lanes.indices where lanes[i].alignment != nil {
            let s = sources[i]
            guard let l = try lanes[i].peek(capture, read: { try s.take() }, shown: { air.shown($0, after: $1) })
            else { continue }
            if best.map({ l.time < $0.1.time }) ?? true { best = (i, l) }
        }
        return best
    }

    /// One log line on the timeline, matched to the packet that carried its bytes.
    func place(_ placed: AppLogLane.Placed, _ index: Int, _ out: (Event) -> Void) {
        let s = sources[index]
        let (l, at) = (placed.line, placed.time)
        let match = air.match(l, at: at, after: lanes[index].lastMatched)
        lanes[index].lastMatched.update(match)
        // However many lines come before the next event, what they decide goes on.
        defer { settle(before: at &- Self.window, out) }
        let time = Timestamp(microseconds: at)
        // A line the filter hides still says what it disagrees with.
        if l.kept {
            let entry = AppLogEntry(
                source: s.name, line: l.line.number, level: l.line.level, tag: l.line.tag, message: l.line.message,
                matchesRecord: match.record)
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
        AppLogAirMatcher.disagreements(
            match, of: l.line, in: s.name, at: at, lastSent: &lanes[index].lastSent, record: lastRecord
        ) { output.hold($0) }
    }
}
