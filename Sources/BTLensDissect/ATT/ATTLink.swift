import BTLensCore

/// A connection's ATT bearer and the characteristic streams on it, freed together when the
/// connection closes. A class: a connection's PDUs come in runs, and the analyzer keeps the link of
/// the last one at hand instead of looking it up for each.
final class ATTLink {
    @exclusivity(unchecked) var decoder: ATTDecoder
    /// Streams in the order they began; a stream is never removed on its own, so a slot stays valid.
    @exclusivity(unchecked) private(set) var streams: [(handle: UInt16, direction: Direction, stream: BoundStream)] = []
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
    func push(_ slot: Int, _ value: some Collection<UInt8>, at place: RecordPlace,
              _ out: (consuming A5Stream.Output, BoundStream.Label) -> Void) {
        streams[slot].stream.push(value, at: place, out)
    }

    func hole(_ slot: Int) -> (outputs: [A5Stream.Output], label: BoundStream.Label) {
        (streams[slot].stream.hole(), streams[slot].stream.label)
    }

    /// Ends every stream, in handle and direction order: what each left unfinished, with its label.
    func finishStreams(reason: String) -> [(handle: UInt16, direction: Direction, outputs: [A5Stream.Output], label: BoundStream.Label)] {
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
