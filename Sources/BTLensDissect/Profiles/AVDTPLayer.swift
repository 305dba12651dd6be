import BTLensCapture
import BTLensCore

/// The signal identifiers the stream state machine follows (AVDTP 1.3 §8.5).
enum AVDTPSignalID {
    static let setConfiguration: UInt8 = 0x03
    static let reconfigure: UInt8 = 0x05
    static let open: UInt8 = 0x06
    static let start: UInt8 = 0x07
    static let close: UInt8 = 0x08
    static let suspend: UInt8 = 0x09
    static let abort: UInt8 = 0x0a
}

/// AVDTP on its L2CAP channels (PSM 0x0019): the first channel of a connection carries
/// signalling; each one opened after an Open is accepted carries that endpoint's media (AVDTP 1.3
/// §5.4.2). Signalling messages are named, paired by transaction label, and move each stream
/// endpoint through its states (§9.1); media packets are counted per stream and summed up when the
/// stream stops or its channel closes. Per connection: one assembler per signalling direction
/// (64 KiB), commands awaiting their response (at most 16 labels × 64 signals × 2 directions), a
/// codec per stream endpoint and endpoints awaiting their channel (at most 64, the SEID space):
/// freed with the connection.
final class AVDTPLayer: ConnectionLayer, L2CAPChannelLayer {
    static let psms = ProfileDescriptor.avdtp.psms.map(\.psm)
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
    /// Endpoints whose Open was accepted, in order, each waiting for its transport channel.
    private var awaitingChannel: [ConnectionKey: [UInt8]] = [:]
    /// Each transport channel's endpoint.
    private var transport: [Channel: UInt8] = [:]
    /// The endpoint last opened: a channel `--decode-as` names, with no captured opening, is its.
    private var lastOpened: [ConnectionKey: UInt8] = [:]
    private var media: [Channel: AVDTPMediaCount] = [:]
    /// The connection's first AVDTP channel, both ways: it carries signalling.
    private var signalling: Set<Channel> = []

    init(_ ctx: LayerContext, hci: HCILayer) {
        self.ctx = ctx
        self.hci = hci
    }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: Channel, psm: UInt16?, _ r: CaptureRecord) {
        let payload = pdu.takePayload()
        // The first channel (or one `--decode-as` names AVDTP) carries signalling; the others media.
        guard signalling.contains(channel) || ctx.decodeAs.contains(.cid(channel.cid, psm: PSM.avdtp)) else {
            return mediaPacket(payload, channel, r)
        }
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
                summarize(channel.connection, at: RecordPlace(record: r.number, time: r.timestamp)) {
                    $0 == seid
                }
            }
        } catch {
            // The bytes are shown (and counted) by the undecoded event.
            var d = error.diagnostic
            d.undecodedBytes = 0
            ctx.say(r, channel.connection.handle, d, channel.direction)
            ctx.undecoded(r, channel.connection.handle, "AVDTP", bytes)
        }
    }

    /// A channel opened (both its CIDs): the first carries signalling; a later one is the transport
    /// of the endpoint whose Open was accepted first and has no channel yet.
    func channelOpened(_ channels: [Channel], first: Bool) {
        guard !first else { return signalling.formUnion(channels) }
        guard let connection = channels.first?.connection, var waiting = awaitingChannel[connection],
            !waiting.isEmpty
        else { return }
        let seid = waiting.removeFirst()
        awaitingChannel[connection] = waiting
        for c in channels { transport[c] = seid }
    }

    private func emit(_ m: ProfileMessage, _ channel: Channel, _ r: CaptureRecord) {
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: channel.direction,
                connection: channel.connection.handle, isTop: true, body: .profile(m)))
    }

    /// A command waits for its response; an accepted response moves its endpoints to their next
    /// state (a Reconfigure changes only their codec). Returns the endpoints that stopped streaming.
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
        let state: String?
        switch s.signal {
        case AVDTPSignalID.setConfiguration: state = "configured"
        case AVDTPSignalID.reconfigure: state = nil
        case AVDTPSignalID.open: state = "open"
        case AVDTPSignalID.start: state = "streaming"
        case AVDTPSignalID.suspend: state = "open"
        case AVDTPSignalID.close, AVDTPSignalID.abort: state = "idle"
        default: return []
        }
        if let first = command.seids.first { s.message.fields.append(("seid", .int(first))) }
        if command.seids.count > 1 { s.message.fields.append(("seids", .string(AVDTPSignal.list(command.seids)))) }
        if let state { s.message.fields.append(("stream_state", .string(state))) }
        let step = Lifecycle.Step(record: r.number, time: r.timestamp)
        for seid in command.seids {
            let endpoint = Endpoint(connection: channel.connection, seid: seid)
            if let codec = command.codec { codecs[endpoint] = codec }
            if s.signal == AVDTPSignalID.open {
                lastOpened[channel.connection] = seid
                if (awaitingChannel[channel.connection]?.count ?? 0) < 64 {
                    awaitingChannel[channel.connection, default: []].append(seid)
                }
            }
            let codec = codecs[endpoint]
            hci.connections.update(channel.connection) {
                $0.audioStream(seid: seid, codec: codec, state: state, step)
            }
        }
        return state == nil || state == "streaming" ? [] : command.seids
    }

    private func mediaPacket(_ payload: ArraySlice<UInt8>, _ channel: Channel, _ r: CaptureRecord) {
        var count =
            media.removeValue(forKey: channel)
            ?? AVDTPMediaCount(seid: transport[channel] ?? lastOpened[channel.connection])
        let place = RecordPlace(record: r.number, time: r.timestamp)
        if let d = count.count(payload, at: place, cid: channel.cid) {
            ctx.say(r, channel.connection.handle, d, channel.direction)
        }
        media[channel] = count
    }

    /// The media counted on a connection's channels (nil: every connection) whose endpoint passes
    /// `which`, as `avdtp.media` events at `place`.
    private func summarize(
        _ connection: ConnectionKey?, at place: RecordPlace, channels: [Channel]? = nil,
        which: (UInt8?) -> Bool = { _ in true }
    ) {
        for channel in channels ?? media.keys.sorted()
        where connection == nil || channel.connection == connection {
            guard var count = media[channel], which(count.seid) else { continue }
            let (packets, bytes, seid) = (count.packets, count.bytes, count.seid)
            let codec = seid.flatMap { codecs[Endpoint(connection: channel.connection, seid: $0)] }
            guard let m = count.summary(codec: codec) else { continue }
            media[channel] = count
            if let seid {
                hci.connections.update(channel.connection) { $0.audioMedia(seid: seid, packets: packets, bytes: bytes) }
            }
            ctx.emit(
                Event(
                    record: place.record, timestamp: place.time, direction: channel.direction,
                    connection: channel.connection.handle, isTop: true, body: .profile(m)))
        }
    }

    /// An AVDTP channel closed: its media summed up, its unfinished message shown, its state freed.
    func channelClosed(_ channel: Channel, at place: RecordPlace) {
        signalling.remove(channel)
        summarize(channel.connection, at: place, channels: [channel])
        media[channel] = nil
        transport[channel] = nil
        unfinished([channel], at: place, reason: "its channel's end")
    }

    /// Messages begun and never ended: their bytes, undecoded.
    private func unfinished(_ channels: [Channel], at place: RecordPlace, reason: String) {
        for channel in channels {
            guard var a = assemblers.removeValue(forKey: channel), a.heldBytes > 0 else { continue }
            ctx.undecoded(
                record: place.record, time: place.time, direction: channel.direction, channel.connection.handle,
                "AVDTP message unfinished at \(reason)", a.takeHeld()[...])
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        summarize(connection, at: place)
        unfinished(assemblers.keys.filter { $0.connection == connection }.sorted(), at: place, reason: reason)
        pending = pending.filter { $0.key.connection != connection }
        codecs = codecs.filter { $0.key.connection != connection }
        media = media.filter { $0.key.connection != connection }
        transport = transport.filter { $0.key.connection != connection }
        awaitingChannel[connection] = nil
        lastOpened[connection] = nil
        signalling = signalling.filter { $0.connection != connection }
    }

    func finish(at place: RecordPlace) {
        summarize(nil, at: place)
        unfinished(assemblers.keys.sorted(), at: place, reason: "the end of the capture")
    }
}
