import BTLensCapture
import BTLensCore

/// Dynamic L2CAP channels bound to a dissector by hand (`--decode-as l2cap:0x0041=NAME`): their
/// signalling is not in the capture, so neither their PSM nor their mode is known. On an LE link a
/// dynamic channel is credit-based (Core Vol 3 Part A §3.4.3): its K-frames' SDUs are reassembled,
/// with no MTU, MPS or credits to check. Elsewhere each PDU is a basic-mode information payload.
/// Either way the bytes are read with the dissector's framing, as a PSM binding's SDUs: a frame may
/// span PDUs. One stream per CID and direction, freed with the connection.
final class ForcedChannelLayer: ConnectionLayer {
    typealias Key = L2CAPChannelMap.Key

    private let ctx: LayerContext
    private let hci: HCILayer
    private let dissectors: DissectorLayer
    private var streams: [Key: BoundStream] = [:]
    /// The SDU being reassembled on each LE channel.
    private var sdus: [Key: CreditBasedChannel] = [:]

    init(_ ctx: LayerContext, hci: HCILayer, dissectors: DissectorLayer) {
        self.ctx = ctx
        self.hci = hci
        self.dissectors = dissectors
    }

    /// The dissector `--decode-as` binds to a CID.
    func dissector(cid: UInt16) -> (any MessageDissector)? {
        for case .l2capDissector(let c, let name) in ctx.decodeAs where c == cid {
            if let d = ctx.dissectors.dissector(named: name) { return d }
        }
        return nil
    }

    /// A PDU of a channel `dissector(cid:)` binds.
    func pdu(_ payload: ArraySlice<UInt8>, _ key: Key, _ d: any MessageDissector, _ r: CaptureRecord) {
        let place = RecordPlace(record: r.number, time: r.timestamp)
        guard hci.connections.open[key.connection]?.transport == .le else { return push(payload, key, d, place) }
        // No signalling: nothing to check the SDU against but its own length.
        var channel =
            sdus.removeValue(forKey: key) ?? CreditBasedChannel(mtu: 0xffff, mps: 0xffff, credits: Int.max)
        let outputs = channel.kframe(payload, at: place, cid: key.cid)
        sdus[key] = channel
        for o in outputs {
            switch o {
            case .sdu(let bytes, _): push(bytes[...], key, d, place)
            case .undecoded(let bytes): ctx.undecoded(r, key.connection.handle, what(key), bytes)
            case .diagnostic(let diagnostic): ctx.say(r, key.connection.handle, diagnostic, key.direction)
            }
        }
    }

    private func what(_ key: Key) -> String { "L2CAP channel \(Hex.value(key.cid, width: 4))" }

    private func push(_ bytes: ArraySlice<UInt8>, _ key: Key, _ d: any MessageDissector, _ place: RecordPlace) {
        var stream =
            streams.removeValue(forKey: key)
            ?? BoundStream(
                d, framing: d.framing, detect: false, direction: key.direction, messageLimit: ctx.limits.messageBytes)
        stream.push(bytes, at: place) { o, label in output(o, key, label, place) }
        streams[key] = stream
    }

    private func output(
        _ output: consuming FramedStream.Output, _ key: Key, _ label: BoundStream.Label, _ place: RecordPlace
    ) {
        // The two CIDs of a channel are given one by one: a dissector's forced channels on a
        // connection pair together.
        let pairKey = label.bound.map {
            DissectorLayer.PairKey(connection: key.connection, dissector: $0.name, scope: .l2cap(psm: 0))
        }
        dissectors.a5Event(
            output, stream: ("cid", .hex(key.cid)), label: label, pairKey: pairKey, direction: key.direction,
            connection: key.connection.handle, record: place.record, time: place.time
        ) { f, naming in
            // PSM 0 is no PSM (Core Vol 3 Part A §4.2): the renderers show the CID alone.
            FrameInfo(frame: f, transport: .l2cap, l2capChannel: (0, key.cid), naming)
        }
    }

    private func end(_ connection: ConnectionKey?, at place: RecordPlace, reason: String) {
        for key in sdus.keys.sorted() where connection == nil || key.connection == connection {
            guard var channel = sdus.removeValue(forKey: key) else { continue }
            for o in channel.close(cid: key.cid) {
                switch o {
                case .sdu: break
                case .undecoded(let bytes):
                    ctx.undecoded(
                        record: place.record, time: place.time, direction: key.direction, key.connection.handle,
                        what(key), bytes)
                case .diagnostic(let d):
                    ctx.emit(
                        Event(
                            record: place.record, timestamp: place.time, direction: key.direction,
                            connection: key.connection.handle, isTop: true, body: .diagnostic(d)))
                }
            }
        }
        for key in streams.keys.sorted() where connection == nil || key.connection == connection {
            guard var s = streams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { output(o, key, s.label, place) }
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        end(connection, at: place, reason: reason)
    }

    func finish(at place: RecordPlace) { end(nil, at: place, reason: "the end of the capture") }
}
