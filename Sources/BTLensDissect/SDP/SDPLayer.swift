import BTLensCapture
import BTLensCore

/// SDP: a decoder per ACL link and direction (a response may span PDUs), and what its records say
/// about RFCOMM server channels: the dissector their service class binds, or iAP2.
final class SDPLayer: ConnectionLayer {
    private let ctx: LayerContext
    private let rfcomm: RFCOMMLayer
    private let iap2: IAP2Layer
    private let hfp: HFPLayer
    private var decoders: [ACLKey: SDPDecoder] = [:]

    init(_ ctx: LayerContext, rfcomm: RFCOMMLayer, iap2: IAP2Layer, hfp: HFPLayer) {
        self.ctx = ctx
        self.rfcomm = rfcomm
        self.iap2 = iap2
        self.hfp = hfp
    }

    func pdu(_ payload: ArraySlice<UInt8>, _ key: ACLKey, _ r: CaptureRecord) {
        var decoder = decoders.removeValue(forKey: key) ?? SDPDecoder()
        let (info, diagnostics) = decoder.decode(payload)
        decoders[key] = decoder
        if let info {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: key.direction,
                    connection: key.connection.handle, isTop: true, body: .sdp(info)))
            for s in info.services {
                guard let ch = s.rfcommChannel else { continue }
                let channels = [ch << 1, ch << 1 | 1].map { RFCOMMChannelKey(connection: key.connection, dlci: $0) }
                if let bound = s.classUUIDs.lazy.compactMap({ self.ctx.dissectors.lookup(.rfcommService($0)) }).first {
                    for ck in channels { rfcomm.bindings[ck] = bound }
                }
                if s.classUUIDs.contains(where: { $0.sig16.map(HFPLayer.serviceClasses.contains) ?? false }) {
                    for ck in channels { hfp.carry(ck) }
                }
                guard s.isIAP2 else { continue }
                for ck in channels { iap2.serverChannelListed(ck) }
            }
        }
        for d in diagnostics { ctx.say(r, key.connection.handle, d, key.direction) }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        decoders = decoders.filter { $0.key.connection != connection }
    }

    func finish(at place: RecordPlace) {}
}
