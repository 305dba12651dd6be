import BTLensCapture
import BTLensCore

/// iAP2 on RFCOMM channels: which channels carry it (`--decode-as`, SDP, or their first bytes, a
/// guess until the link's first packet confirms it), their links, and the External Accessory
/// sessions the links carry, as message streams.
final class IAP2Layer: ConnectionLayer, RFCOMMChannelLayer {
    /// Any channel may carry iAP2: its first bytes make a guess or not.
    static let takesAnyChannel = true

    struct EAKey: Hashable, Comparable {
        var connection: ConnectionKey
        var session: UInt16
        var direction: Direction
        static func < (a: EAKey, b: EAKey) -> Bool {
            (a.connection, a.session, a.direction.rawValue) < (b.connection, b.session, b.direction.rawValue)
        }
    }

    let ctx: LayerContext
    /// Unowned: RFCOMM holds this layer as the carrier of its channels, and both live as long as
    /// their analyzer; a strong reference back kept both (and every stream) after it, for each
    /// analyzer a process makes (fuzzing ran out of memory).
    unowned let rfcomm: RFCOMMLayer
    private let dissectors: DissectorLayer
    let budget: GuessBudget
    /// RFCOMM channels carrying iAP2 (decided by their first data) and those that do not.
    var links: [RFCOMMChannelKey: IAP2Link] = [:]
    var notIAP2: Set<RFCOMMChannelKey> = []
    /// Channels that might carry iAP2, with their data until it confirms or contradicts that.
    var guesses: [RFCOMMChannelKey: IAP2Guess] = [:]
    /// RFCOMM server channels SDP says carry iAP2, per connection.
    var serverChannels: Set<RFCOMMChannelKey> = []
    private var eaStreams: [EAKey: BoundStream] = [:]

    init(_ ctx: LayerContext, rfcomm: RFCOMMLayer, dissectors: DissectorLayer, budget: GuessBudget) {
        self.ctx = ctx
        self.rfcomm = rfcomm
        self.dissectors = dissectors
        self.budget = budget
    }

    func isListed(by service: SDPService) -> Bool { service.isIAP2 }

    /// SDP lists the iAP2 service class on this channel: a guess, even if its data said otherwise.
    func listed(_ ck: RFCOMMChannelKey) {
        serverChannels.insert(ck)
        notIAP2.remove(ck)
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        settleGuesses(connection)
        for ck in links.keys.filter({ $0.connection == connection }).sorted() {
            endIAP2(ck, record: place.record, time: place.time, reason: reason)
        }
        notIAP2 = notIAP2.filter { $0.connection != connection }
        serverChannels = serverChannels.filter { $0.connection != connection }
    }

    func finish(at place: RecordPlace) {
        settleGuesses(nil)
        for ck in links.keys.sorted() {
            endIAP2(ck, record: place.record, time: place.time, reason: "the end of the capture")
        }
    }

    func claims(_ channel: RFCOMMChannelKey, _ bytes: ArraySlice<UInt8>) -> Bool { true }

    /// Data on an RFCOMM channel no other protocol carries: to the channel's iAP2 link or guess, or
    /// shown undecoded.
    func data(_ bytes: ArraySlice<UInt8>, _ ck: RFCOMMChannelKey, _ direction: Direction, _ r: CaptureRecord) {
        let channel = ck.dlci >> 1
        if notIAP2.contains(ck) {
            return ctx.undecoded(r, ck.connection.handle, "RFCOMM channel \(channel)", bytes)
        }
        if links[ck] == nil, guesses[ck] == nil {
            if ctx.decodeAs.contains(.rfcommIAP2(channel: channel)) {
                links[ck] = IAP2Link()
            } else {
                // SDP's word is a guess too: the data may contradict it.
                guesses[ck] = IAP2Guess(fromSDP: serverChannels.contains(ck))
            }
        }
        if guesses[ck] != nil {
            return guessIAP2(
                ck,
                HeldData.Piece(
                    record: r.number, time: r.timestamp, direction: direction,
                    bytes: Array(bytes)))
        }
        push(bytes, ck, direction, r.number, r.timestamp)
    }

    /// Bytes for a channel's iAP2 link, its outputs as events.
    func push(
        _ bytes: ArraySlice<UInt8>, _ ck: RFCOMMChannelKey, _ direction: Direction, _ record: Int,
        _ time: Timestamp
    ) {
        guard var link = links.removeValue(forKey: ck) else { return }
        let outputs = link.push(bytes, direction: direction, time: time)
        links[ck] = link
        for o in outputs { iap2(o, ck, direction, record, time) }
    }

    func iap2(_ o: IAP2Link.Output, _ ck: RFCOMMChannelKey, _ direction: Direction, _ record: Int, _ time: Timestamp) {
        let handle = ck.connection.handle
        func event(_ body: EventBody, top: Bool = true) {
            ctx.emit(
                Event(
                    record: record, timestamp: time, direction: direction, connection: handle, isTop: top,
                    body: body))
        }
        switch o {
        // DATA and bare ACK packets are link detail; what DATA carries is shown as its own event.
        case .packet(let p): event(.iap2(p), top: p.kind != .data && p.kind != .ack)
        case .control(let c): event(.iap2Control(c))
        case .identification(let i): event(.iap2Identification(i))
        case .diagnostic(let d): event(.diagnostic(d))
        case .ea(let session, let protocolName, let bytes):
            let key = EAKey(connection: ck.connection, session: session, direction: direction)
            // The binding is looked up once, when the session's stream begins: not per packet.
            var s: BoundStream
            if let existing = eaStreams.removeValue(forKey: key) {
                s = existing
            } else {
                let bound = protocolName.flatMap { ctx.dissectors.lookup(.eaProtocol($0)) }
                s = BoundStream(
                    bound?.dissector, framing: bound?.framing, detect: bound == nil, direction: direction,
                    messageLimit: ctx.limits.messageBytes,
                    keepsPayloads: bound != nil ? ctx.detail == .full : ctx.valueBytes)
            }
            s.push(bytes, at: RecordPlace(record: record, time: time)) { o, label in
                ea(o, key, label, protocolName, record, time)
            }
            eaStreams[key] = s
        }
    }

    private func ea(
        _ output: consuming FramedStream.Output, _ key: EAKey, _ stream: BoundStream.Label,
        _ protocolName: String?, _ record: Int, _ time: Timestamp
    ) {
        let pairKey = stream.bound.map {
            DissectorLayer.PairKey(connection: key.connection, dissector: $0.name, scope: .eaSession(key.session))
        }
        dissectors.a5Event(
            output, stream: ("ea_session", .int(key.session)), label: stream, pairKey: pairKey,
            direction: key.direction, connection: key.connection.handle, record: record,
            time: time
        ) { f, naming in
            FrameInfo(frame: f, transport: .iap2, eaSession: key.session, protocolName: protocolName, naming)
        }
    }

    /// The link's channel ends: partial packets and EA frames are reported, state is freed.
    private func endIAP2(_ ck: RFCOMMChannelKey, record: Int, time: Timestamp, reason: String) {
        guard let link = links.removeValue(forKey: ck) else { return }
        for (direction, skipped, partial) in link.leftovers() {
            var ds: [Diagnostic] = []
            if skipped > 0 {
                var d = Diagnostic(
                    IAP2Diagnostics.resync,
                    "skipped \(skipped) bytes that form no iAP2 packet before \(reason)",
                    fields: [("skipped_bytes", .int(skipped))])
                d.undecodedBytes = skipped
                ds.append(d)
            }
            if let (have, need) = partial {
                var d = Diagnostic(
                    IAP2Diagnostics.truncated,
                    "stream ended by \(reason) inside an iAP2 packet: \(have) of \(need) bytes",
                    fields: [("have", .int(have)), ("need", .int(need))])
                d.undecodedBytes = have
                ds.append(d)
            }
            for d in ds {
                ctx.emit(
                    Event(
                        record: record, timestamp: time, direction: direction, connection: ck.connection.handle,
                        isTop: true, body: .diagnostic(d)))
            }
        }
        for key in eaStreams.keys.filter({ $0.connection == ck.connection }).sorted() {
            guard var s = eaStreams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { ea(o, key, s.label, nil, record, time) }
        }
    }
}
