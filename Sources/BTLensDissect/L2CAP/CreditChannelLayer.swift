import BTLensCapture
import BTLensCore

/// The SDUs of L2CAP credit-based channels, to what their PSM carries: EATT to the ATT layer, a PSM
/// a definition binds (`bind: psms:`, or `--decode-as psm:0x0080=NAME`) to its dissector's framing,
/// exactly as a characteristic's values; the rest shown undecoded. One stream per channel and
/// direction, freed with the connection.
final class CreditChannelLayer: ConnectionLayer {
    typealias Key = L2CAPChannelMap.Key

    private let ctx: LayerContext
    private let hci: HCILayer
    private let att: ATTLayer
    private let dissectors: DissectorLayer
    /// Each channel's stream; nil for a channel whose SDUs are shown undecoded.
    private var streams: [Key: (psm: UInt16, stream: BoundStream?)] = [:]
    /// Connections whose lifecycle already says they used a credit-based channel.
    private var used: Set<ConnectionKey> = []

    init(_ ctx: LayerContext, hci: HCILayer, att: ATTLayer, dissectors: DissectorLayer) {
        self.ctx = ctx
        self.hci = hci
        self.att = att
        self.dissectors = dissectors
    }

    /// What a channel's K-frame gave: SDUs delivered, diagnostics said, stray bytes undecoded.
    func outputs(_ outputs: [CreditBasedChannel.Output], _ key: L2CAPChannelMap.Key, psm: UInt16, _ r: CaptureRecord) {
        if used.insert(key.connection).inserted {
            hci.connections.update(key.connection) { $0.usedCreditChannel = true }
        }
        for o in outputs {
            switch o {
            case .sdu(let bytes, let first): sdu(bytes, firstRecord: first, key, psm: psm, r)
            case .undecoded(let bytes): ctx.undecoded(r, key.connection.handle, what(key, psm), bytes)
            case .diagnostic(let d): ctx.say(r, key.connection.handle, d, key.direction)
            }
        }
    }

    /// What a channel's SDU left incomplete when it closed.
    func left(_ outputs: [CreditBasedChannel.Output], _ key: Key, psm: UInt16, at place: RecordPlace) {
        for o in outputs {
            switch o {
            case .sdu: break
            case .undecoded(let bytes):
                ctx.undecoded(
                    record: place.record, time: place.time, direction: key.direction, key.connection.handle,
                    what(key, psm), bytes)
            case .diagnostic(let d):
                ctx.emit(
                    Event(
                        record: place.record, timestamp: place.time, direction: key.direction,
                        connection: key.connection.handle, isTop: true, body: .diagnostic(d)))
            }
        }
    }

    private func what(_ key: Key, _ psm: UInt16) -> String {
        "credit-based channel \(Hex.value(key.cid, width: 4)) (\(PSM.name(psm)))"
    }

    private func sdu(_ bytes: [UInt8], firstRecord: Int, _ key: Key, psm: UInt16, _ r: CaptureRecord) {
        if psm == PSM.eatt {
            let pdu = L2CAPPDU(
                cid: key.cid, declaredLength: bytes.count, payload: bytes[...], firstRecord: firstRecord,
                truncated: false)
            return att.pdu(pdu, key.connection, key.direction, r)
        }
        let place = RecordPlace(record: r.number, time: r.timestamp)
        var stream: BoundStream
        switch streams.removeValue(forKey: key) {
        case (_, let s?)?: stream = s
        case (_, nil)?:
            streams[key] = (psm, nil)
            return ctx.undecoded(r, key.connection.handle, what(key, psm), bytes[...])
        case nil:
            if let bound = binding(psm, key.connection) {
                stream = BoundStream(
                    bound.dissector, framing: bound.framing, detect: false, direction: key.direction,
                    messageLimit: ctx.limits.messageBytes)
            } else {
                // No binding: A5 if the channel's first SDU starts with an A5 frame (the device's
                // vendor names it), as for a characteristic no definition binds.
                let limit = ctx.limits.messageBytes
                if let d = ctx.dissectors.forDevice(hci.device(key.connection)), case .frames = d.framing {
                    stream = BoundStream(
                        d, framing: d.framing, detect: true, direction: key.direction, messageLimit: limit)
                } else {
                    stream = BoundStream(nil, framing: nil, detect: true, direction: key.direction, messageLimit: limit)
                }
                var probe = stream
                probe.push(bytes[...], at: place) { _, _ in }
                guard probe.isFramed else {
                    streams[key] = (psm, nil)
                    return ctx.undecoded(r, key.connection.handle, what(key, psm), bytes[...])
                }
            }
        }
        // A frame may span SDUs, as an A5 frame spans ATT values.
        stream.push(bytes[...], at: place) { o, label in output(o, key, psm: psm, label, place) }
        streams[key] = (psm, stream)
    }

    private func binding(_ psm: UInt16, _ connection: ConnectionKey) -> (
        dissector: any MessageDissector, framing: Framing
    )? {
        for case .psm(let p, let name) in ctx.decodeAs where p == psm {
            if let d = ctx.dissectors.dissector(named: name) { return (d, d.framing) }
        }
        return ctx.dissectors.lookup(.l2capPSM(psm), on: hci.device(connection))
    }

    private func output(
        _ output: consuming FramedStream.Output, _ key: Key, psm: UInt16, _ stream: BoundStream.Label,
        _ place: RecordPlace
    ) {
        let pairKey = stream.bound.map {
            // Requests and responses travel on the two CIDs of one channel: they pair by PSM.
            DissectorLayer.PairKey(connection: key.connection, dissector: $0.name, scope: .l2cap(psm: psm))
        }
        dissectors.a5Event(
            output, stream: ("cid", .hex(key.cid)), label: stream, pairKey: pairKey, direction: key.direction,
            connection: key.connection.handle, record: place.record, time: place.time
        ) { f, naming in
            FrameInfo(frame: f, transport: .l2cap, l2capChannel: (psm, key.cid), naming)
        }
    }

    /// A channel closed by signalling: its stream ends (its CIDs may open another channel).
    func closeChannel(_ channel: Key, at place: RecordPlace) {
        endStreams(at: place, reason: "its channel's end") { $0 == channel }
    }

    private func endStreams(
        _ connection: ConnectionKey? = nil, at place: RecordPlace, reason: String, only: (Key) -> Bool = { _ in true }
    ) {
        for key in streams.keys.filter({ (connection == nil || $0.connection == connection) && only($0) }).sorted() {
            guard case (let psm, var s?)? = streams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { output(o, key, psm: psm, s.label, place) }
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        endStreams(connection, at: place, reason: reason)
        used.remove(connection)
    }

    func finish(at place: RecordPlace) { endStreams(nil, at: place, reason: "the end of the capture") }
}
