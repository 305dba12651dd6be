import BTLensCore

/// A connection's ATT bearer and the characteristic streams on it, freed together when the
/// connection closes. A class: a connection's PDUs come in runs, and the ATT layer keeps the link of
/// the last one at hand instead of looking it up for each.
///
/// Its state skips runtime exclusivity checks. Safe because one thread drives an analyzer and only
/// the ATT layer reaches a link; what a stream's outputs go to (the dissector layer, the event sink)
/// never reaches back into it. It keeps two runtime checks off every notification: the decoder's (each
/// PDU) and the stream push's (each value); the optimizer keeps both without it (release SIL), as a
/// stream's outputs go to code it cannot see. Checked, this link's state with the unchecked counters
/// of `StatsCollector` and `JSONLRenderer` cost the 3 MB benchmark `stats` 155.4M → 172.8M and the
/// JSONL timeline 270.1M → 339.1M instructions (callgrind, the LTO build of issue 23).
final class ATTLink {
    @exclusivity(unchecked) var decoder: ATTDecoder
    /// Streams in the order they began; a stream is never removed on its own, so a slot stays valid.
    @exclusivity(unchecked) private(set) var streams:
        [(
            handle: UInt16, direction: Direction,
            stream: BoundStream
        )] = []
    @exclusivity(unchecked) private var slots: [UInt32: Int] = [:]
    /// The last two streams found: a run of PDUs goes to one characteristic, or to a command
    /// characteristic and the one that answers.
    @exclusivity(unchecked) private var last = (key: UInt32.max, slot: 0)
    @exclusivity(unchecked) private var previous = (key: UInt32.max, slot: 0)

    init(_ decoder: ATTDecoder) { self.decoder = decoder }

    private static func key(_ handle: UInt16, _ direction: Direction) -> UInt32 {
        UInt32(handle) << 1 | UInt32(direction.rawValue)
    }

    /// The slot of the stream of `handle` in `direction`, if it began.
    func slot(_ handle: UInt16, _ direction: Direction) -> Int? {
        let key = Self.key(handle, direction)
        if key == last.key { return last.slot }
        if key == previous.key {
            swap(&last, &previous)
            return last.slot
        }
        guard let slot = slots[key] else { return nil }
        previous = last
        last = (key, slot)
        return slot
    }

    func add(_ stream: BoundStream, handle: UInt16, direction: Direction) -> Int {
        streams.append((handle, direction, stream))
        slots[Self.key(handle, direction)] = streams.count - 1
        return streams.count - 1
    }

    /// Feeds a stream in place (its buffer is not copied), handing its outputs and label to `out`.
    func push(
        _ slot: Int, _ value: some Collection<UInt8>, at place: RecordPlace,
        _ out: (consuming FramedStream.Output, BoundStream.Label) -> Void
    ) {
        streams[slot].stream.push(value, at: place, out)
    }

    func hole(_ slot: Int) -> (outputs: [FramedStream.Output], label: BoundStream.Label) {
        (streams[slot].stream.hole(), streams[slot].stream.label)
    }

    /// Ends every stream, in handle and direction order: what each left unfinished, with its label.
    func finishStreams(reason: String)
        -> [(handle: UInt16, direction: Direction, outputs: [FramedStream.Output], label: BoundStream.Label)]
    {
        let order = streams.indices.sorted {
            (streams[$0].handle, streams[$0].direction.rawValue) < (streams[$1].handle, streams[$1].direction.rawValue)
        }
        let ended = order.map { i in
            (streams[i].handle, streams[i].direction, streams[i].stream.finish(reason: reason), streams[i].stream.label)
        }
        streams.removeAll()
        slots.removeAll()
        last = (UInt32.max, 0)
        previous = last
        return ended
    }
}

/// The ATT links of open connections, with the link of the last PDU at hand.
///
/// That link is kept unretained, and lent to the next PDUs of its connection without a retain. Safe
/// because the table holds every link it names, and `remove` (a connection closing, at an HCI event,
/// never while a PDU is decoded) forgets it with its entry. It bought 13.7 → 12.0 atomic reference
/// counts a record on the decoding thread (commit 32663f0).
final class ATTLinkTable {
    private var links: [ConnectionKey: ATTLink] = [:]
    private var last: (key: ConnectionKey, link: Unmanaged<ATTLink>)?

    /// Lends a connection's link to `body`: the last one used, or the one in the table, or a new one.
    func lend(_ key: ConnectionKey, orAdd make: () -> ATTLink, _ body: (ATTLink) -> Void) {
        if let last, last.key == key { return last.link._withUnsafeGuaranteedRef(body) }
        let link: ATTLink
        if let known = links[key] {
            link = known
        } else {
            link = make()
            links[key] = link
        }
        last = (key, .passUnretained(link))
        body(link)
    }

    subscript(key: ConnectionKey) -> ATTLink? { links[key] }

    /// The links in connection order.
    var sorted: [(key: ConnectionKey, value: ATTLink)] { links.sorted { $0.key < $1.key } }

    func remove(_ key: ConnectionKey) -> ATTLink? {
        if last?.key == key { last = nil }
        return links.removeValue(forKey: key)
    }
}
