import BTLensCapture
import BTLensCore

/// AVCTP on its L2CAP channels: AVRCP control (PSM 0x0017) and browsing (PSM 0x001B). Each message
/// is joined from its packets (one assembler per channel and direction, at most 64 KiB, freed with
/// the connection), then named by the AVRCP decoder; what does not parse is shown undecoded.
final class AVCTPLayer: ConnectionLayer, L2CAPChannelLayer {
    static let psms = ProfileDescriptor.avrcp.psms.map(\.psm)
    typealias Channel = L2CAPChannelMap.Key
    private let ctx: LayerContext
    private var assemblers: [Channel: AVCTPAssembler] = [:]

    init(_ ctx: LayerContext) { self.ctx = ctx }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: Channel, psm: UInt16?, _ r: CaptureRecord) {
        let browsing = psm == PSM.avctpBrowsing
        let payload = pdu.takePayload()
        let handle = channel.connection.handle
        var assembler = assemblers.removeValue(forKey: channel) ?? AVCTPAssembler()
        let out = assembler.push(payload)
        assemblers[channel] = assembler
        if let d = out.diagnostic { ctx.say(r, handle, d, channel.direction) }
        guard let message = out.message else {
            // A packet that is no part of a message (not one in progress) is shown as it came.
            if out.diagnostic != nil, assembler.heldBytes == 0 {
                ctx.undecoded(r, handle, browsing ? "AVCTP Browsing" : "AVCTP", payload)
            }
            return
        }
        guard let decoded = browsing ? AVRCPDecoder.browsing(message) : AVRCPDecoder.control(message) else {
            return ctx.undecoded(r, handle, browsing ? "AVCTP Browsing" : "AVCTP", payload)
        }
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: channel.direction, connection: handle,
                isTop: true, body: .profile(decoded.message)))
        if let d = decoded.diagnostic { ctx.say(r, handle, d, channel.direction) }
        // A profile other than AVRCP (its PID named) is not read further: its bytes are shown.
        if message.pid != AVCTPMessage.avrcpPID, !message.payload.isEmpty {
            ctx.undecoded(r, handle, "AVCTP PID \(Hex.value(message.pid, width: 4))", message.payload)
        }
    }

    /// Messages begun and never ended (connection nil: every one): their bytes, undecoded.
    /// A channel closed by signalling: its unfinished message shown, its assembler freed.
    func channelClosed(_ channel: Channel, at place: RecordPlace) {
        unfinished(nil, at: place, reason: "its channel's end") { $0 == channel }
    }

    private func unfinished(
        _ connection: ConnectionKey?, at place: RecordPlace, reason: String, only: (Channel) -> Bool = { _ in true }
    ) {
        for channel in assemblers.keys.sorted()
        where (connection == nil || channel.connection == connection) && only(channel) {
            guard var a = assemblers.removeValue(forKey: channel), a.heldBytes > 0 else { continue }
            ctx.undecoded(
                record: place.record, time: place.time, direction: channel.direction, channel.connection.handle,
                "AVCTP message unfinished at \(reason)", a.takeHeld()[...])
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        unfinished(connection, at: place, reason: reason)
        assemblers = assemblers.filter { $0.key.connection != connection }
    }

    func finish(at place: RecordPlace) { unfinished(nil, at: place, reason: "the end of the capture") }
}
