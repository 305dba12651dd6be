import BTLensCapture
import BTLensCore

/// L2CAP: PDUs handed to the layer their channel carries, by fixed CID or by the PSM signalling
/// (or `--decode-as`, or a guess) gave a dynamic channel. Keeps the channels of each connection and
/// the guesses about channels with no captured setup.
final class L2CAPLayer: ConnectionLayer {
    let ctx: LayerContext
    private let credit: CreditChannelLayer
    private let forced: ForcedChannelLayer
    let budget: GuessBudget
    private var bindings = L2CAPBindings()
    private var channels = L2CAPChannelMap()
    /// Dynamic channels guessed to carry RFCOMM, said once each.
    var guessed: [L2CAPChannelMap.Key: L2CAPGuess] = [:]

    init(_ ctx: LayerContext, credit: CreditChannelLayer, forced: ForcedChannelLayer, budget: GuessBudget) {
        self.ctx = ctx
        self.credit = credit
        self.forced = forced
        self.budget = budget
    }

    /// The layer reads the fixed channels and PSMs it names.
    func bind(_ layer: any L2CAPChannelLayer) { bindings.bind(layer) }

    /// A whole PDU, to the layer its channel carries.
    /// `continuations`: the records of its continuing fragments, for its lower-layer event.
    func pdu(
        _ pdu: consuming L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord,
        continuations: [Int] = []
    ) {
        if ctx.lowerLayers {
            let info = L2CAPInfo(
                cid: pdu.cid, length: pdu.declaredLength, firstRecord: pdu.firstRecord,
                truncated: pdu.truncated, continuations: continuations)
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: false, body: .l2cap(info)))
        }
        let channel = L2CAPChannelMap.Key(connection: key, direction: direction, cid: pdu.cid)
        guard pdu.cid >= 0x0040 else {
            switch bindings.fixed[Int(pdu.cid)] {
            case .layer(let layer)?: layer.l2capPDU(consume pdu, channel, psm: nil, r)
            case .signaling?: signaling(pdu, key, direction, r)
            case nil: ctx.undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
            }
            return
        }
        let place = RecordPlace(record: r.number, time: r.timestamp)
        if let outputs = channels.kframe(pdu.payload, channel, at: place) {
            return credit.outputs(outputs, channel, psm: channels.psm(key, direction, pdu.cid) ?? 0, r)
        }
        let signalled = channels.psm(key, direction, pdu.cid)
        if signalled == nil, let d = forced.dissector(cid: pdu.cid) {
            return forced.pdu(pdu.payload, channel, d, r)
        }
        // A channel with no captured setup is forced, guessed, or shown undecoded there.
        if let psm = signalled ?? unsignalledPSM(pdu, key, direction, r) {
            dynamic(pdu, channel, psm: psm, r)
        }
    }

    /// A PDU of a dynamic channel, to the layer its PSM binds.
    func dynamic(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16, _ r: CaptureRecord) {
        guard let layer = bindings.layer(psm: psm) else {
            return ctx.undecoded(r, channel.connection.handle, PSM.name(psm), pdu.payload)
        }
        layer.l2capPDU(consume pdu, channel, psm: psm, r)
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
        for o in changes.opened {
            bindings.layer(psm: o.psm)?.channelOpened(
                [o.toResponder, o.toRequester], first: channels.isFirst(o.toResponder, psm: o.psm))
        }
        // A channel's end ends what its layer kept for it: a new channel may reuse its CIDs.
        for (channel, psm, left) in changes.closed {
            credit.left(left, channel, psm: psm, at: place)
            credit.closeChannel(channel, at: place)
            bindings.layer(psm: psm)?.channelClosed(channel, at: place)
        }
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
