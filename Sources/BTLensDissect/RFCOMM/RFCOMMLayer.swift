import BTLensCapture
import BTLensCore

/// An RFCOMM channel of a connection (its DLCI: server channel and direction bit).
struct RFCOMMChannelKey: Hashable, Comparable {
    var connection: ConnectionKey
    var dlci: UInt8
    static func < (a: RFCOMMChannelKey, b: RFCOMMChannelKey) -> Bool {
        (a.connection, a.dlci) < (b.connection, b.dlci)
    }
}

/// RFCOMM on its PSM: frames shown, and each data channel's data routed: to the dissector its SDP
/// service class binds (with its message streams), else to the protocol that carries the channel
/// (`RFCOMMBindings`), else shown undecoded.
final class RFCOMMLayer: ConnectionLayer, L2CAPChannelLayer {
    static let psms = [PSM.rfcomm]

    struct StreamKey: Hashable, Comparable {
        var channel: RFCOMMChannelKey
        var direction: Direction
        static func < (a: StreamKey, b: StreamKey) -> Bool {
            (a.channel, a.direction.rawValue) < (b.channel, b.direction.rawValue)
        }
    }

    private let ctx: LayerContext
    private let dissectors: DissectorLayer
    /// RFCOMM channels whose SDP service class a dissector binds, and their streams.
    private(set) var bindings: [RFCOMMChannelKey: (dissector: any MessageDissector, framing: Framing)] = [:]
    private var streams: [StreamKey: BoundStream] = [:]
    private var carriers = RFCOMMBindings()

    init(_ ctx: LayerContext, dissectors: DissectorLayer) {
        self.ctx = ctx
        self.dissectors = dissectors
    }

    /// The protocol reads the channels SDP lists it on or that it claims.
    func bind(_ layer: any RFCOMMChannelLayer) { carriers.bind(layer) }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {
        let (key, direction) = (channel.connection, channel.direction)
        guard let frame = frame(pdu.takePayload(), key, direction, r) else { return }
        let ck = RFCOMMChannelKey(connection: key, dlci: frame.dlci)
        if let bound = forced(ck) ?? bindings[ck] {
            return messages(frame.information, ck, bound, direction, r.number, r.timestamp)
        }
        guard let carrier = carriers.carrier(ck, frame.information) else {
            return ctx.undecoded(r, key.handle, "RFCOMM channel \(frame.channel)", frame.information)
        }
        carrier.data(frame.information, ck, direction, r)
    }

    /// An SDP record of a connection names an RFCOMM server channel: both its DLCIs are bound to the
    /// dissector its service class binds, and to the protocols it lists.
    func serviceListed(_ service: SDPService, _ connection: ConnectionKey) {
        guard let ch = service.rfcommChannel else { return }
        let channels = [ch << 1, ch << 1 | 1].map { RFCOMMChannelKey(connection: connection, dlci: $0) }
        if let bound = service.classUUIDs.lazy.compactMap({ self.ctx.dissectors.lookup(.rfcommService($0)) }).first {
            for ck in channels { bindings[ck] = bound }
        }
        carriers.listed(service, channels)
    }

    /// The dissector `--decode-as rfcomm:N=NAME` binds to server channel N, on every link: it wins
    /// over SDP's listing and the protocols that claim channels.
    private func forced(_ ck: RFCOMMChannelKey) -> (dissector: any MessageDissector, framing: Framing)? {
        for case .rfcommDissector(let channel, let name) in ctx.decodeAs where channel == ck.dlci >> 1 {
            if let d = ctx.dissectors.dissector(named: name) { return (d, d.framing) }
        }
        return nil
    }

    /// A frame, shown; returned when it carries data on a data channel.
    private func frame(
        _ payload: ArraySlice<UInt8>, _ key: ConnectionKey, _ direction: Direction,
        _ r: CaptureRecord
    ) -> RFCOMMFrame? {
        let frame: RFCOMMFrame
        do {
            frame = try RFCOMMFrame.parse(payload)
        } catch {
            var d = Diagnostic(
                RFCOMMDiagnostics.malformed,
                "RFCOMM frame of \(payload.count) bytes: needs \(error.needed) more at offset \(error.offset), \(error.available) left",
                fields: [("offset", .int(error.offset))], packetOffset: error.offset)
            d.undecodedBytes = payload.count
            ctx.say(r, key.handle, d, direction)
            return nil
        }
        var info = RFCOMMInfo(
            dlci: frame.dlci, frame: frame.type.map { .known($0) } ?? .unknown(control: frame.control),
            pollFinal: frame.pollFinal, credits: frame.credits, length: frame.information.count)
        if frame.dlci == 0, frame.type == .uih, let mux = try? RFCOMMMuxCommand.parse(frame.information) {
            info.mux = mux.name
            info.fields = [(mux.isCommand ? "command" : "response", .bytes(Array(mux.values)))]
        }
        // Data frames on a data channel are lower-layer detail: what they carry is shown above them.
        let carriesData = frame.type == .uih && frame.dlci != 0 && !frame.information.isEmpty
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                isTop: !carriesData, body: .rfcomm(info)))
        if frame.fcs != frame.expectedFCS {
            ctx.say(
                r, key.handle,
                Diagnostic(
                    RFCOMMDiagnostics.fcsBad,
                    "DLCI \(frame.dlci) \(info.frame.name): FCS \(Hex.value(frame.fcs, width: 2)), expected \(Hex.value(frame.expectedFCS, width: 2))",
                    fields: [
                        ("expected", .int(frame.expectedFCS)),
                        ("actual", .int(frame.fcs)),
                    ]),
                direction)
        }
        return carriesData ? frame : nil
    }

    /// Bytes of a channel whose SDP service class a dissector binds.
    func messages(
        _ bytes: ArraySlice<UInt8>, _ ck: RFCOMMChannelKey,
        _ bound: (dissector: any MessageDissector, framing: Framing),
        _ direction: Direction, _ record: Int, _ time: Timestamp
    ) {
        let key = StreamKey(channel: ck, direction: direction)
        var s =
            streams.removeValue(forKey: key)
            ?? BoundStream(
                bound.dissector, framing: bound.framing, detect: false, direction: direction,
                messageLimit: ctx.limits.messageBytes)
        s.push(bytes, at: RecordPlace(record: record, time: time)) { o, label in output(o, key, label, record, time) }
        streams[key] = s
    }

    private func output(
        _ output: consuming FramedStream.Output, _ key: StreamKey, _ stream: BoundStream.Label,
        _ record: Int, _ time: Timestamp
    ) {
        let ck = key.channel
        let pairKey = stream.bound.map {
            DissectorLayer.PairKey(connection: ck.connection, dissector: $0.name, scope: .rfcomm(dlci: ck.dlci))
        }
        dissectors.a5Event(
            output, stream: ("dlci", .int(ck.dlci)), label: stream, pairKey: pairKey,
            direction: key.direction, connection: ck.connection.handle, record: record,
            time: time
        ) { f, naming in
            FrameInfo(frame: f, transport: .rfcomm, rfcommChannel: ck.dlci >> 1, naming)
        }
    }

    /// RFCOMM streams of a connection (nil: every one) end: partial frames are reported, state is freed.
    private func endStreams(_ connection: ConnectionKey?, at place: RecordPlace, reason: String) {
        for key in streams.keys.filter({ connection == nil || $0.channel.connection == connection }).sorted() {
            guard var s = streams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { output(o, key, s.label, place.record, place.time) }
        }
        bindings = bindings.filter { connection != nil && $0.key.connection != connection }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        endStreams(connection, at: place, reason: reason)
        carriers.close(connection)
    }

    func finish(at place: RecordPlace) { endStreams(nil, at: place, reason: "the end of the capture") }
}
