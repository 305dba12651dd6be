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

/// RFCOMM: frames shown, and the channels whose SDP service class a dissector binds, with their
/// message streams. What the other channels carry is the iAP2 layer's to decide.
final class RFCOMMLayer: ConnectionLayer {
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
    var bindings: [RFCOMMChannelKey: (dissector: any MessageDissector, framing: Framing)] = [:]
    private var streams: [StreamKey: BoundStream] = [:]

    init(_ ctx: LayerContext, dissectors: DissectorLayer) {
        self.ctx = ctx
        self.dissectors = dissectors
    }

    /// A frame, shown; returned when it carries data on a data channel.
    func frame(
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
    }

    func finish(at place: RecordPlace) { endStreams(nil, at: place, reason: "the end of the capture") }
}
