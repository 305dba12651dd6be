import BTLensCapture
import BTLensCore

/// ATT and GATT: a bearer per connection (its decoder and characteristic streams, in an
/// `ATTLink`), and the GATT databases, kept per peer beyond its connections.
final class ATTLayer: ConnectionLayer {
    /// Where a characteristic stream's frames came from.
    struct StreamKey {
        var connection: ConnectionKey
        var handle: UInt16
        var direction: Direction
    }

    private let ctx: LayerContext
    /// `ctx.tally`, held here too: reached through `ctx`, the cell is retained at every count.
    private let tally: SingleOwnerCell<Tally>
    private let hci: HCILayer
    private let dissectors: DissectorLayer
    let gatt: GATTStore
    /// ATT bearers of open connections and their characteristic streams.
    private let links = ATTLinkTable()

    init(_ ctx: LayerContext, hci: HCILayer, dissectors: DissectorLayer) {
        self.ctx = ctx
        tally = ctx.tally
        self.hci = hci
        self.dissectors = dissectors
        gatt = GATTStore(databaseLimit: ctx.limits.gattDatabases)
    }

    /// The PDU is taken: its bytes move into the ATT decoder's reader, not copied.
    func pdu(
        _ pdu: consuming L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord,
        fixedChannel: Bool = false
    ) {
        let truncated = pdu.truncated
        var reader = ByteReader(pdu.takePayload())
        links.lend(key, orAdd: { newLink(key, le: fixedChannel) }) {
            decode(&reader, truncated, key, direction, r, $0)
        }
    }

    /// A connection's link, made with its first PDU. The ATT fixed channel (CID 4) is LE's: an
    /// inferred connection learns its transport from it.
    private func newLink(_ key: ConnectionKey, le: Bool) -> ATTLink {
        if le { hci.connections.setTransport(key, .le) }
        var d = ATTDecoder(gatt: gatt, peer: hci.peer(key))
        d.facts.inferred = hci.connections[key]?.inferred ?? true
        d.facts.encrypted = hci.connections[key]?.lifecycle.encrypted ?? false
        d.keepsValues = ctx.valueBytes
        return ATTLink(d)
    }

    /// What the bearer of an open connection knows so far, if it has one.
    func facts(_ key: ConnectionKey) -> ATTFacts? { links[key]?.decoder.facts }

    /// Encryption started or stopped on a connection: its bearer's findings depend on it.
    func setEncrypted(_ key: ConnectionKey, _ enabled: Bool) { links[key]?.decoder.facts.encrypted = enabled }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        guard let link = links.remove(connection) else { return }
        hci.connections.update(connection) { $0.take(link.decoder.facts) }
        endStreams(link, connection, at: place, reason: reason)
    }

    func finish(at place: RecordPlace) {
        for (key, link) in links.sorted {
            endStreams(link, key, at: place, reason: "the end of the capture")
        }
    }

    private func endStreams(_ link: ATTLink, _ key: ConnectionKey, at place: RecordPlace, reason: String) {
        for s in link.finishStreams(reason: reason) {
            for o in s.outputs {
                a5(
                    o, key: StreamKey(connection: key, handle: s.handle, direction: s.direction), stream: s.label,
                    record: place.record, time: place.time)
            }
        }
    }

    private func decode(
        _ reader: inout ByteReader, _ truncated: Bool, _ key: ConnectionKey, _ direction: Direction,
        _ r: CaptureRecord, _ link: ATTLink
    ) {
        var result = ATTResult()
        link.decoder.decode(
            &reader, direction: direction, record: r.number, time: r.timestamp, truncated: truncated,
            into: &result)

        // What is read of the info later is read now: the info itself moves into its event.
        let fromServer = result.info.opcode.isFromServer
        let readResponse =
            result.info.opcode == .readResponse && !result.info.truncated
            ? result.info.handle.flatMap { h in result.info.value.map { (h, result.info.uuid, $0) } } : nil
        if ctx.attEvents {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: true, body: .att(result.takeInfo())))
        } else {
            tally.value.attOpcodes[Int(result.info.opcode.rawValue)] += 1
        }
        for d in result.diagnostics { ctx.say(r, key.handle, d, direction) }
        for v in result.gattValues {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: true, body: .gattValue(v)))
            if v.kind == .longRead { readValue(v.handle, v.uuid, v.value[...], key, direction, r) }
        }
        if let (handle, uuid, value) = readResponse { readValue(handle, uuid, value, key, direction, r) }
        for handle in result.streamHoles {
            guard let slot = link.slot(handle, direction) else { continue }
            let (outs, label) = link.hole(slot)
            for o in outs {
                a5(
                    o, key: StreamKey(connection: key, handle: handle, direction: direction), stream: label,
                    record: r.number, time: r.timestamp)
            }
        }
        // The closures take what they need of the record, not a copy of it; the PDU's bytes are
        // lent to them once, not retained for each value.
        let (number, time, start) = (r.number, r.timestamp, reader.bytes.startIndex)
        reader.bytes.withUnsafeBufferPointer { pdu in
            result.streamValues.forEachLent { handle, value in
                var slot = link.slot(handle, direction)
                if slot == nil, link.streams.count < ctx.limits.streamsPerConnection {
                    // The characteristic's UUID is looked up once, when its stream starts.
                    let serverIsPeer = fromServer ? direction == .received : direction == .sent
                    let uuid = gatt.uuid(GATTStore.Key(peer: hci.peer(key), serverIsPeer: serverIsPeer), handle)
                    let stream = dissectors.boundStream(
                        handle: handle, uuid: uuid, connection: key,
                        direction: direction)
                    slot = link.add(stream, handle: handle, direction: direction)
                }
                guard let slot else { return }
                value.withBytes(in: pdu, startIndex: start) { bytes in
                    link.push(slot, bytes, at: RecordPlace(record: number, time: time)) { o, label in
                        a5(
                            o, key: StreamKey(connection: key, handle: handle, direction: direction), stream: label,
                            record: number, time: time)
                    }
                }
            }
        }
    }

    /// A value read whole (Read Response, long read) of a bound characteristic: one message for a
    /// value-per-message dissector; for a framed one, frames read from the value's first byte in a
    /// stream of its own, ended with the value: a read is a snapshot, not the next bytes of the
    /// notified stream, whose frame in progress it must not cut.
    private func readValue(
        _ handle: UInt16, _ uuid: BluetoothUUID?, _ value: ArraySlice<UInt8>, _ key: ConnectionKey,
        _ direction: Direction, _ r: CaptureRecord
    ) {
        let forced = ctx.decodeAs.contains {
            if case .attHandle(handle, _, _) = $0 { return true } else { return false }
        }
        guard forced || uuid.flatMap({ ctx.dissectors.lookup(.characteristic($0), on: hci.device(key)) }) != nil
        else { return }
        var s = dissectors.boundStream(handle: handle, uuid: uuid, connection: key, direction: direction)
        guard s.dissector != nil else { return }
        let (number, time) = (r.number, r.timestamp)
        let streamKey = StreamKey(connection: key, handle: handle, direction: direction)
        s.push(value, at: RecordPlace(record: number, time: time)) { o, label in
            a5(o, key: streamKey, stream: label, record: number, time: time)
        }
        for o in s.finish(reason: "the end of the read value") {
            a5(o, key: streamKey, stream: s.label, record: number, time: time)
        }
    }

    private func a5(
        _ output: consuming FramedStream.Output, key: StreamKey, stream: BoundStream.Label, record: Int,
        time: Timestamp
    ) {
        let pairKey = stream.bound.map { DissectorLayer.PairKey(connection: key.connection, dissector: $0.name) }
        dissectors.a5Event(
            output, stream: ("att_handle", .hex(key.handle)), label: stream, pairKey: pairKey,
            direction: key.direction, connection: key.connection.handle, record: record,
            time: time
        ) { f, naming in
            FrameInfo(frame: f, transport: .att, attHandle: key.handle, uuid: stream.uuid, naming)
        }
    }
}
