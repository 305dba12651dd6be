import BTLensAppLog
import BTLensDissect
import Foundation

/// `follow`: the logs grow while the capture does, and the capture's clock is taken to go on with
/// the wall clock while no record comes. Here, not in BTLensAppLog, as it reads the monotonic
/// clock and is called from the follow's waits.
extension AppLogMerger {
    /// Nanoseconds a live log waits for 3 lines to agree on its offset before it takes what it has.
    static let liveAlignWait: UInt64 = 10_000_000_000

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
            lanes[i].advance()
            place(line, i, out)
        }
        nextTime = .min
        // Every line within the window of these values has been placed.
        settle(before: now &- 2 * Self.window, out)
    }

    /// Live: aligns each log once 3 of its lines agree on an offset, or `liveAlignWait` after its
    /// first line came; a log with no line yet (one that appears after the follow began) holds
    /// nothing back. True when no log waits: the events may go on.
    func alignLive() throws -> Bool {
        let now = Self.wallNow()
        let values = air.valueTimes
        var waiting = false
        for (i, s) in sources.enumerated() where lanes[i].alignment == nil {
            if options.offsetMicroseconds == nil {
                try readAhead(s)
                let matched = AppLogClock.offset(of: s.ahead, values).matched
                guard !s.ahead.isEmpty else { continue }
                let seen = lanes[i].seen ?? now
                lanes[i].seen = seen
                guard matched >= 3 || now &- seen >= Self.liveAlignWait else {
                    waiting = true
                    continue
                }
            }
            try align(i, values)
        }
        return !waiting
    }

    static func wallNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
