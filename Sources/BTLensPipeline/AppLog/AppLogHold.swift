import BTLensAppLog
import BTLensDissect

/// The merger's second hold: events wait here `AppLogBounds.window` more, so that what is learnt
/// of one in that time (a received value no line showed) follows it in time order.
///
/// Bounded by `AppLogBounds.holdLimit` events and `holdBytes` of their bytes: past those the
/// oldest go on early, and what is learnt of them later comes out where it is learnt.
struct AppLogHold {
    private struct Slot {
        var event: Event
        var time: Int64
        var bytes: Int
        var after: [Event] = []
    }
    private var slots: [Slot] = []
    private var start = 0
    /// The number of slots passed on and removed before `slots[0]`.
    private var base = 0
    private var bytes = 0

    /// Holds `e`; its slot, for `follow`.
    @discardableResult
    mutating func hold(_ e: consuming Event) -> Int {
        let (time, bytes) = (e.timestamp.microseconds, e.heldBytes)
        return hold(e, time: time, bytes: bytes)
    }

    /// Holds `e`, whose time and bytes are known.
    @discardableResult
    mutating func hold(_ e: consuming Event, time: Int64, bytes: Int) -> Int {
        slots.append(Slot(event: e, time: time, bytes: bytes))
        self.bytes += bytes
        return base + slots.count - 1
    }

    /// `e` to come right after the event in `slot`, or now when that one has gone on.
    mutating func follow(_ slot: Int, _ e: Event) {
        let i = slot - base
        if i >= start, i < slots.count {
            slots[i].after.append(e)
        } else {
            hold(e)
        }
    }

    /// Passes on the events before `limit`, and the oldest past the bounds.
    mutating func release(before limit: Int64, _ out: (Event) -> Void) {
        while start < slots.count,
            slots[start].time < limit || slots.count - start > AppLogBounds.holdLimit || bytes > AppLogBounds.holdBytes
        {
            // Moved out, not copied.
            var s = Slot(event: AppLogMerger.spent, time: 0, bytes: 0)
            swap(&s, &slots[start])
            start += 1
            bytes -= s.bytes
            out(s.event)
            for a in s.after { out(a) }
        }
        if start > 1024 && start * 2 > slots.count {
            slots.removeFirst(start)
            base += start
            start = 0
        }
    }
}
