import BTLensDissect

/// The merger's second hold: events wait here `AppLogMerger.window` more, so that what is learnt
/// of one in that time (a received value no line showed) follows it in time order.
///
/// Bounded by `AppLogMerger.holdLimit` events and `holdBytes` of their bytes: past those the
/// oldest go on early, and what is learnt of them later comes out where it is learnt.
struct AppLogHold {
    private var slots: [(event: Event, after: [Event])] = []
    private var start = 0
    /// The number of slots passed on and removed before `slots[0]`.
    private var base = 0
    private var bytes = 0

    /// Holds `e`; its slot, for `follow`.
    @discardableResult
    mutating func hold(_ e: Event) -> Int {
        slots.append((e, []))
        bytes += e.heldBytes
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
            slots[start].event.timestamp.microseconds < limit || slots.count - start > AppLogMerger.holdLimit
                || bytes > AppLogMerger.holdBytes
        {
            let (e, after) = slots[start]
            slots[start] = (AppLogMerger.spent, [])
            start += 1
            bytes -= e.heldBytes
            out(e)
            for a in after { out(a) }
        }
        if start > 1024 && start * 2 > slots.count {
            slots.removeFirst(start)
            base += start
            start = 0
        }
    }
}
