import BTLensCapture
import BTLensCore

/// SDP on its PSM: a decoder per ACL link and direction (a response may span PDUs); what its
/// records say about RFCOMM server channels goes to RFCOMM, which binds them.
final class SDPLayer: ConnectionLayer, L2CAPChannelLayer {
    static let psms = [PSM.sdp]

    private let ctx: LayerContext
    private let rfcomm: RFCOMMLayer
    private var decoders: [ACLKey: SDPDecoder] = [:]

    init(_ ctx: LayerContext, rfcomm: RFCOMMLayer) {
        self.ctx = ctx
        self.rfcomm = rfcomm
    }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {
        let (payload, key) = (pdu.takePayload(), ACLKey(channel.connection, channel.direction))
        var decoder = decoders.removeValue(forKey: key) ?? SDPDecoder()
        let (info, diagnostics) = decoder.decode(payload)
        decoders[key] = decoder
        if let info {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: key.direction,
                    connection: key.connection.handle, isTop: true, body: .sdp(info)))
            for s in info.services { rfcomm.serviceListed(s, key.connection) }
        }
        for d in diagnostics { ctx.say(r, key.connection.handle, d, key.direction) }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        decoders = decoders.filter { $0.key.connection != connection }
    }

    func finish(at place: RecordPlace) {}
}
