import BTLensCore

/// Which record each byte a stream still buffers came from, so that a diagnostic about bytes pushed
/// earlier (a resync, a frame cut off) names the record where they began, as Wireshark users look
/// them up. Positions count the stream's bytes from its first; an entry ends where its record's
/// bytes end. Most values are framed whole as they arrive: only a value whose bytes stay buffered
/// is remembered, so the common path stores nothing.
struct ByteOrigins: Sendable {
    /// Entries kept; past it the two oldest merge, attributing the second's bytes to the first's record.
    static let limit = 32

    /// A nil place: bytes fed apart from a capture (an example, a test), which have no record.
    private var entries: [(end: Int, place: RecordPlace?)] = []
    private var head = 0
    /// Bytes pushed since the stream began.
    private(set) var total = 0
    /// The value being pushed: its place and where its bytes start.
    private var current: RecordPlace?
    private var currentStart = 0

    /// A value of `count` bytes from `place` is being pushed.
    mutating func begin(_ count: Int, _ place: RecordPlace?) {
        currentStart = total
        total += count
        current = place
    }

    /// The value is framed: bytes before `position` are consumed, and what is left of it is remembered.
    mutating func end(consumedUpTo position: Int) {
        consumed(upTo: position)
        if position < total && currentStart < total { remember(end: total, current) }
        currentStart = total
    }

    /// The record of the byte at `position`, or nil when it is not known (already consumed, or never pushed).
    func place(at position: Int) -> RecordPlace? {
        if position >= currentStart && position < total { return current }
        var i = head
        while i < entries.count {
            if position < entries[i].end { return entries[i].place }
            i += 1
        }
        return nil
    }

    /// Forgets the records of bytes before `position`: they are consumed.
    mutating func consumed(upTo position: Int) {
        guard head < entries.count else { return }
        while head < entries.count, entries[head].end <= position { head += 1 }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        }
    }

    private mutating func remember(end: Int, _ place: RecordPlace?) {
        if let last = entries.last, head < entries.count, last.place == place {
            entries[entries.count - 1].end = end
        } else {
            entries.append((end, place))
        }
        if entries.count - head > Self.limit {
            entries[head + 1].place = entries[head].place
            head += 1
        }
        if head > Self.limit {
            entries.removeFirst(head)
            head = 0
        }
    }
}
