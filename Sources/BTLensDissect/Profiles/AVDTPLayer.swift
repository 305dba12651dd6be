import BTLensCapture
import BTLensCore

/// AVDTP on its L2CAP channels (PSM 0x0019): the first channel of a connection carries
/// signalling, the ones opened after it carry media (AVDTP 1.3 §5.4). Signalling messages are
/// named, paired by transaction label, and move each stream endpoint through its states (§9.1);
/// media packets are counted per stream and summed up when the stream stops. Per connection: one
/// assembler per signalling direction (64 KiB), commands awaiting their response (at most 16
/// labels × 64 signals × 2 directions), and a state per stream endpoint (at most 62): freed with
/// the connection.
/// The signal identifiers the stream state machine follows (AVDTP 1.3 §8.5).
enum AVDTPSignalID {
    static let setConfiguration: UInt8 = 0x03
    static let open: UInt8 = 0x06
    static let start: UInt8 = 0x07
    static let close: UInt8 = 0x08
    static let suspend: UInt8 = 0x09
    static let abort: UInt8 = 0x0a
}

final class AVDTPLayer: ConnectionLayer {
    typealias Channel = L2CAPChannelMap.Key
    private struct Pending: Hashable {
        var connection: ConnectionKey
        var transaction: UInt8
        var signal: UInt8
        var direction: Direction
    }
    private struct Endpoint: Hashable, Comparable {
        var connection: ConnectionKey
        var seid: UInt8
        static func < (a: Endpoint, b: Endpoint) -> Bool { (a.connection, a.seid) < (b.connection, b.seid) }
    }

    private let ctx: LayerContext
    private let hci: HCILayer
    private var assemblers: [Channel: AVDTPAssembler] = [:]
    private var pending: [Pending: (seids: [UInt8], codec: String?)] = [:]
    private var codecs: [Endpoint: String] = [:]
    /// The endpoint an Open was last accepted for: the next transport channel is its (§5.4.2).
    private var opened: [ConnectionKey: UInt8] = [:]
    private var media: [Channel: AVDTPMediaCount] = [:]

    init(_ ctx: LayerContext, hci: HCILayer) {
        self.ctx = ctx
        self.hci = hci
    }

    func pdu(_ payload: ArraySlice<UInt8>, _ channel: Channel, signalling: Bool, _ r: CaptureRecord) {
        guard signalling else { return mediaPacket(payload, channel, r) }
        var assembler = assemblers.removeValue(forKey: channel) ?? AVDTPAssembler()
        let out = assembler.push(payload)
        assemblers[channel] = assembler
        for d in out.diagnostics { ctx.say(r, channel.connection.handle, d, channel.direction) }
        guard let bytes = out.message else { return }
        do {
            var signal = try AVDTPSignal(bytes)
            let stopped = step(&signal, channel, r)
            emit(signal.message, channel, r)
            // A stream that stopped streaming: what it carried, after the signal that stopped it.
            for seid in stopped {
                summarize(seid: seid, channel.connection, at: RecordPlace(record: r.number, time: r.timestamp))
            }
        } catch {
            // The bytes are shown (and counted) by the undecoded event.
            var d = error.diagnostic
            d.undecodedBytes = 0
            ctx.say(r, channel.connection.handle, d, channel.direction)
            ctx.undecoded(r, channel.connection.handle, "AVDTP", bytes)
        }
    }

    private func emit(_ m: ProfileMessage, _ channel: Channel, _ r: CaptureRecord) {
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: channel.direction,
                connection: channel.connection.handle, isTop: true, body: .profile(m)))
    }

    /// A command waits for its response; an accepted response moves its endpoints to their next
    /// state. Returns the endpoints that stopped streaming.
    private func step(_ s: inout AVDTPSignal, _ channel: Channel, _ r: CaptureRecord) -> [UInt8] {
        let key = Pending(
            connection: channel.connection, transaction: s.transaction, signal: s.signal, direction: channel.direction)
        guard s.messageType != .command else {
            pending[key] = (s.acpSEIDs, s.codec)
            return []
        }
        var asked = key
        asked.direction = channel.direction.opposite
        guard let command = pending.removeValue(forKey: asked), s.messageType == .accept else { return [] }
        let state: String
        switch s.signal {
        case AVDTPSignalID.setConfiguration: state = "configured"
        case AVDTPSignalID.open: state = "open"
        case AVDTPSignalID.start: state = "streaming"
        case AVDTPSignalID.suspend: state = "open"
        case AVDTPSignalID.close, AVDTPSignalID.abort: state = "idle"
        default: return []
        }
        if let first = command.seids.first { s.message.fields.append(("seid", .int(first))) }
        if command.seids.count > 1 { s.message.fields.append(("seids", .string(AVDTPSignal.list(command.seids)))) }
        s.message.fields.append(("stream_state", .string(state)))
        for seid in command.seids {
            let endpoint = Endpoint(connection: channel.connection, seid: seid)
            if let codec = command.codec { codecs[endpoint] = codec }
            if s.signal == AVDTPSignalID.open { opened[channel.connection] = seid }
            let step = Lifecycle.Step(record: r.number, time: r.timestamp)
            let codec = codecs[endpoint]
            hci.connections.update(channel.connection) { $0.audioStream(seid: seid, codec: codec, state: state, step) }
        }
        return state == "streaming" ? [] : command.seids
    }

    private func mediaPacket(_ payload: ArraySlice<UInt8>, _ channel: Channel, _ r: CaptureRecord) {
        var count = media.removeValue(forKey: channel) ?? newCount(channel.connection)
        let place = RecordPlace(record: r.number, time: r.timestamp)
        if let d = count.count(payload, at: place, cid: channel.cid) {
            ctx.say(r, channel.connection.handle, d, channel.direction)
        }
        media[channel] = count
    }

    private func newCount(_ connection: ConnectionKey) -> AVDTPMediaCount {
        let seid = opened[connection]
        return AVDTPMediaCount(seid: seid, codec: seid.flatMap { codecs[Endpoint(connection: connection, seid: $0)] })
    }

    /// The media counted for an endpoint's stream (nil: every stream of the connection, or of every
    /// connection), as `avdtp.media` events at `place`.
    private func summarize(seid: UInt8?, _ connection: ConnectionKey?, at place: RecordPlace) {
        for channel in media.keys.sorted()
        where connection == nil || channel.connection == connection && (seid == nil || media[channel]?.seid == seid) {
            guard var count = media[channel] else { continue }
            let (packets, bytes, stream) = (count.packets, count.bytes, count.seid)
            guard let m = count.summary() else { continue }
            media[channel] = count
            if let stream {
                hci.connections.update(channel.connection) {
                    $0.audioMedia(seid: stream, packets: packets, bytes: bytes)
                }
            }
            ctx.emit(
                Event(
                    record: place.record, timestamp: place.time, direction: channel.direction,
                    connection: channel.connection.handle, isTop: true, body: .profile(m)))
        }
    }

    /// Messages begun and never ended (connection nil: every one): their bytes, undecoded.
    private func unfinished(_ connection: ConnectionKey?, at place: RecordPlace, reason: String) {
        for channel in assemblers.keys.sorted() where connection == nil || channel.connection == connection {
            guard var a = assemblers.removeValue(forKey: channel), a.heldBytes > 0 else { continue }
            ctx.undecoded(
                record: place.record, time: place.time, direction: channel.direction, channel.connection.handle,
                "AVDTP message unfinished at \(reason)", a.takeHeld()[...])
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        summarize(seid: nil, connection, at: place)
        unfinished(connection, at: place, reason: reason)
        pending = pending.filter { $0.key.connection != connection }
        codecs = codecs.filter { $0.key.connection != connection }
        media = media.filter { $0.key.connection != connection }
        opened[connection] = nil
    }

    func finish(at place: RecordPlace) {
        summarize(seid: nil, nil, at: place)
        unfinished(nil, at: place, reason: "the end of the capture")
    }
}
