import BTLensCapture
import BTLensCore

/// L2CAP: PDUs handed to the layer their channel carries, by fixed CID or by the PSM signalling
/// (or `--decode-as`, or a guess) gave a dynamic channel. Keeps the channels of each connection and
/// the guesses about channels with no captured setup.
final class L2CAPLayer: ConnectionLayer {
    let ctx: LayerContext
    private let att: ATTLayer
    private let smp: SMPLayer
    private let sdp: SDPLayer
    let rfcomm: RFCOMMLayer
    let iap2: IAP2Layer
    private let credit: CreditChannelLayer
    private let avctp: AVCTPLayer
    private let avdtp: AVDTPLayer
    let budget: GuessBudget
    private var channels = L2CAPChannelMap()
    /// Dynamic channels guessed to carry RFCOMM, said once each.
    var guessed: [L2CAPChannelMap.Key: L2CAPGuess] = [:]

    init(
        _ ctx: LayerContext, att: ATTLayer, smp: SMPLayer, sdp: SDPLayer, rfcomm: RFCOMMLayer, iap2: IAP2Layer,
        credit: CreditChannelLayer, avctp: AVCTPLayer, avdtp: AVDTPLayer, budget: GuessBudget
    ) {
        self.avdtp = avdtp
        self.credit = credit
        self.avctp = avctp
        self.ctx = ctx
        self.att = att
        self.smp = smp
        self.sdp = sdp
        self.rfcomm = rfcomm
        self.iap2 = iap2
        self.budget = budget
    }

    /// A whole PDU, to the layer its channel carries.
    func pdu(_ pdu: consuming L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        if ctx.lowerLayers {
            let info = L2CAPInfo(
                cid: pdu.cid, length: pdu.declaredLength, firstRecord: pdu.firstRecord,
                truncated: pdu.truncated)
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: false, body: .l2cap(info)))
        }
        switch pdu.cid {
        case L2CAPChannel.att:
            att.pdu(consume pdu, key, direction, r, fixedChannel: true)
        case L2CAPChannel.signaling, L2CAPChannel.leSignaling:
            signaling(pdu, key, direction, r)
        case L2CAPChannel.smp, L2CAPChannel.bredrSMP:
            smp.smp(pdu, key, direction, r)
        case 0x0040...:
            let channel = L2CAPChannelMap.Key(connection: key, direction: direction, cid: pdu.cid)
            let place = RecordPlace(record: r.number, time: r.timestamp)
            if let outputs = channels.kframe(pdu.payload, channel, at: place) {
                return credit.outputs(outputs, channel, psm: channels.psm(key, direction, pdu.cid) ?? 0, r)
            }
            // A channel with no captured setup is forced, guessed, or shown undecoded there.
            switch channels.psm(key, direction, pdu.cid) ?? unsignalledPSM(pdu, key, direction, r) {
            case PSM.rfcomm?: rfcommPDU(pdu.payload, key, direction, r)
            case PSM.att?: att.pdu(consume pdu, key, direction, r)
            case PSM.sdp?: sdp.pdu(pdu.payload, ACLKey(key, direction), r)
            case PSM.avdtp?:
                // The first AVDTP channel of a connection (or one `--decode-as` names) carries signalling.
                let signalling =
                    channels.avdtpSignalling.contains(channel)
                    || ctx.decodeAs.contains(.cid(pdu.cid, psm: PSM.avdtp))
                avdtp.pdu(pdu.payload, channel, signalling: signalling, r)
            case let psm? where psm == PSM.avctp || psm == PSM.avctpBrowsing:
                avctp.pdu(pdu.payload, channel, browsing: psm == PSM.avctpBrowsing, r)
            case let psm?: ctx.undecoded(r, key.handle, PSM.name(psm), pdu.payload)
            case nil: break
            }
        default:
            ctx.undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
        }
    }

    private func signaling(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let place = RecordPlace(record: r.number, time: r.timestamp)
        let (commands, diagnostics, changes) = channels.decode(
            pdu.payload, connection: key, direction: direction, at: place)
        for c in commands {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: true, body: .l2capSignaling(c)))
        }
        for d in diagnostics { ctx.say(r, key.handle, d, direction) }
        for o in changes.opened where o.psm == PSM.avdtp && !channels.avdtpSignalling.contains(o.toResponder) {
            avdtp.transportOpened([o.toResponder, o.toRequester])
        }
        // A channel's end ends what its layer kept for it: a new channel may reuse its CIDs.
        for (channel, psm, left) in changes.closed {
            credit.left(left, channel, psm: psm, at: place)
            credit.closeChannel(channel, at: place)
            if psm == PSM.avdtp { avdtp.closeChannel(channel, at: place) }
            if psm == PSM.avctp || psm == PSM.avctpBrowsing { avctp.closeChannel(channel, at: place) }
        }
    }

    /// An RFCOMM PDU: its frame shown, and the data it carries handed to what its channel carries.
    func rfcommPDU(_ payload: ArraySlice<UInt8>, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        guard let frame = rfcomm.frame(payload, key, direction, r) else { return }
        iap2.channelData(frame, key, direction, r)
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        for (channel, psm, left) in channels.close(connection) { credit.left(left, channel, psm: psm, at: place) }
        settleGuesses(connection)
        guessed = guessed.filter { $0.key.connection != connection }
    }

    func finish(at place: RecordPlace) {
        settleGuesses(nil)
        for (channel, psm, left) in channels.close(nil) { credit.left(left, channel, psm: psm, at: place) }
    }
}
