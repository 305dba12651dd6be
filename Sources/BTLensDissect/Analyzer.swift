import BTLensCapture
import BTLensCore

/// Routes capture records through the layers, HCI → ACL → L2CAP → ATT or SDP/RFCOMM → iAP2 →
/// framed streams, and emits events, one record at a time.
///
/// Each layer keeps its state per open connection in a type of its own (in its folder), bounded by
/// `Limits`, and hands what it decodes to the layer above it: L2CAP by the CID or PSM a layer
/// binds, RFCOMM by the server channel a protocol carries. The analyzer builds the layers,
/// registers them in one list (which binds them and orders their closing), passes each record to
/// the first, and opens and closes connections in all of them. GATT databases are kept per peer,
/// beyond their connections.
public final class Analyzer {
    private let ctx: LayerContext
    private let checks: RecordChecks
    private let hci: HCILayer
    private let acl: ACLLayer
    private let att: ATTLayer
    private let hfp: HFPLayer
    private let linkLayer: LinkLayerLayer
    /// The layers with per-connection state, in the registration list's order: the order they close
    /// and finish in.
    private let layers: [any ConnectionLayer]

    /// How much of each PDU the consumer reads.
    public enum Detail: Sendable {
        /// Every event, with the bytes of values and frames: the timeline and the report.
        case full
        /// What `stats` reads. ATT PDUs, and frames that no dissector decodes, are counted in `tally`
        /// and not sent as events; the bytes of ATT values and of those frames are not copied out of
        /// the capture. Their streams still read the values where they lie.
        case counts
    }
    public init(_ configuration: Configuration = Configuration(), emit: @escaping (consuming Event) -> Void) {
        ctx = LayerContext(configuration, sink: emit)
        checks = RecordChecks(ctx)
        hci = HCILayer(ctx)
        let budget = GuessBudget()
        let streams = DissectorLayer(ctx, hci: hci)
        att = ATTLayer(ctx, hci: hci, dissectors: streams)
        let credit = CreditChannelLayer(ctx, hci: hci, att: att, dissectors: streams)
        let forced = ForcedChannelLayer(ctx, hci: hci, dissectors: streams)
        let l2cap = L2CAPLayer(ctx, credit: credit, forced: forced, budget: budget)
        acl = ACLLayer(ctx, hci: hci, l2cap: l2cap)
        linkLayer = LinkLayerLayer(ctx, hci: hci, acl: acl, keys: configuration.linkLayerKeys)
        let rfcomm = RFCOMMLayer(ctx, dissectors: streams)
        hfp = HFPLayer(ctx)
        // Every protocol, once: each is bound where it is read (the CIDs and PSMs, or the RFCOMM
        // channels, its type names), and the list's order is the order a closing connection and the
        // end of the capture reach them: one that may still hand data to another while it closes
        // comes before it (iAP2 settles its guesses into RFCOMM's bound streams; every stream may
        // raise requests that the dissector layer reports last).
        let registered: [Registered] = [
            .of(acl), .of(att), .of(SMPLayer(ctx, hci: hci, pairing: linkLayer)), .of(l2cap), .of(credit), .of(forced),
            .of(AVCTPLayer(ctx)),
            .of(AVDTPLayer(ctx, hci: hci)), .of(SDPLayer(ctx, rfcomm: rfcomm)),
            .of(IAP2Layer(ctx, rfcomm: rfcomm, dissectors: streams, budget: budget)), .of(hfp), .of(rfcomm),
            .of(streams),
        ]
        var layers: [any ConnectionLayer] = []
        for entry in registered {
            if let p = entry.l2cap { l2cap.bind(p) }
            if let p = entry.rfcomm { rfcomm.bind(p) }
            if let p = entry.closes { layers.append(p) }
        }
        self.layers = layers
        linkLayer.encryptionChanged = { [hci, att] key, status, enabled, r in
            hci.lifecycle(.encryption(status: status, handle: key.handle, enabled: enabled), r)
            if status.isSuccess { att.setEncrypted(key, enabled) }
        }
    }

    /// An entry of the registration list: what the layer's type conforms to, known when it is
    /// compiled (a cast at run time looks conformances up, about 2 ms at start-up).
    private struct Registered {
        var closes: (any ConnectionLayer)?
        var l2cap: (any L2CAPChannelLayer)?
        var rfcomm: (any RFCOMMChannelLayer)?
        static func of(_ l: some ConnectionLayer) -> Self { Self(closes: l) }
        static func of(_ l: some L2CAPChannelLayer) -> Self { Self(l2cap: l) }
        static func of(_ l: some ConnectionLayer & L2CAPChannelLayer) -> Self { Self(closes: l, l2cap: l) }
        static func of(_ l: some ConnectionLayer & RFCOMMChannelLayer) -> Self { Self(closes: l, rfcomm: l) }
    }

    /// The layers a closing connection reaches, in order (pinned by a test).
    var closeOrder: [String] { layers.map { String(describing: type(of: $0)) } }

    /// The most severe diagnostic so far (for `--fail-on`).
    public var worstSeverity: Severity? { ctx.worstSeverity }
    /// What was counted and not sent, in `.counts` detail.
    public var tally: Tally { ctx.tally.value }
    /// The bounds on everything kept per capture.
    public var limits: Limits { ctx.limits }
    /// The dissector tables: built-in Swift dissectors and loaded definitions.
    public var dissectors: DissectorTable { ctx.dissectors }
    public var connections: ConnectionTable { hci.connections }
    /// Devices seen advertising while the phone scanned.
    public var advertisers: AdvertisingTable { hci.advertisers }
    public var gatt: GATTStore { att.gatt }
    /// True once a 14-byte ACL cut has been seen.
    public var androidFiltered: Bool { checks.androidFiltered }

    /// Every connection seen, with what their ATT bearers know so far for those still open.
    public var connectionSummaries: [ConnectionInfo] {
        // Changed in place: a copy of thousands of connections would double the end's peak memory.
        var all = hci.connections.all
        for i in all.indices where all[i].closedRecord == nil {
            if let facts = att.facts(all[i].key) { all[i].lifecycle.take(facts) }
        }
        return all
    }

    /// Every profile's identity, once: its event type follows the other kinds in this order.
    public static let profiles: [ProfileDescriptor] = [.avdtp, .avdtpMedia, .avrcp, .hfp, .ll]

    /// Every diagnostic kind the decoders can raise.
    public static let diagnosticKinds: [DiagnosticKind] =
        (CaptureDiagnostics.all + HCIDiagnostics.all + L2CAPDiagnostics.all + RFCOMMDiagnostics.all + SDPDiagnostics.all
        + IAP2Diagnostics.all
        + HFPDiagnostics.all + CreditDiagnostics.all + AVRCPDiagnostics.all + AVDTPDiagnostics.all
        + AVDTPMediaDiagnostics.all + ATTDiagnostics.all
        + FramingDiagnostics.all
        + DissectorDiagnostics.all
        + LifecycleDiagnostics.all + LLDiagnostics.all + LLStateDiagnostics.all)
        .sorted { $0.id < $1.id }

    public func process(_ item: borrowing CaptureItem) {
        switch item {
        case .record(let r): process(r)
        case .problem(let p):
            var d = p.diagnostic
            if d.packetOffset == nil { d.fields.append(("offset", .int(p.fileOffset))) }
            ctx.emit(
                Event(
                    record: p.recordNumber, timestamp: checks.last.time, direction: nil, connection: nil,
                    isTop: true, body: .diagnostic(d)))
        }
    }

    public func process(_ r: CaptureRecord) {
        checks.check(r)
        switch r.kind {
        case .note:
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: nil, connection: nil, isTop: true,
                    body: .note(category: r.noteCategory, text: r.noteText)))
        case .command:
            if let effect = hci.command(r) { apply(effect, r) }
        case .event:
            if let effect = hci.event(r) { apply(effect, r) }
        case .aclData:
            acl.aclData(r)
        case .linkLayer:
            // Connections silent past their supervision timeout close first, reason Connection Timeout.
            for (key, at) in linkLayer.lost(before: r) { disconnected(key, HCIErrorCode(rawValue: 0x08), at) }
            if let (key, reason) = linkLayer.packet(r) { disconnected(key, reason, r) }
        case .scoData, .isoData:
            if r.kind == .scoData { hci.scoLength(r) }
            ctx.undecoded(r, nil, r.kind == .scoData ? "SCO audio" : "ISO data", r.payload)
        case .unknown:
            var d = Diagnostic(
                CaptureDiagnostics.unknownPacketType,
                "\(r.noteCategory): not an HCI packet type btlens knows")
            d.undecodedBytes = r.payload.count
            ctx.say(r, nil, d)
        }
    }

    /// End of the capture: whatever is still unfinished in any layer is reported, not dropped.
    public func finish() {
        let place = checks.last
        for layer in layers { layer.finish(at: place) }
    }

    /// What an HCI command or event does to connections: opening and closing reach every layer;
    /// the other steps of a connection's life are the HCI layer's.
    private func apply(_ effect: HCIConnectionEffect, _ r: CaptureRecord) {
        switch effect {
        case .hostConnects(let a): hci.connections.hostCreatesConnection(to: a)
        case .peerRequests(let a): hci.connections.peerRequestsConnection(from: a)
        case .hostCancels: hci.connections.hostCancelsConnection(index: r.controllerIndex)
        case .cancelRefused: hci.connections.cancelRefused(index: r.controllerIndex)
        case .audioLink(let handle, let address, let linkType, let airMode):
            let acl = hci.connections.open.first { $0.value.address == address }?.key
            hfp.audioLink(handle: handle, linkType: linkType, airMode: airMode, acl: acl, r)
        case .roleChanged(let address, let role):
            for (key, info) in hci.connections.open where info.address == address { hci.connections.setRole(key, role) }
        case .completed(let status, let handle, let address, let type, let transport, let role, let parameters):
            completed(
                status, ConnectionKey(index: r.controllerIndex, handle: handle), address, type, transport, role,
                parameters, r)
        case .disconnected(let status, let handle, let reason):
            guard status.isSuccess else { return }
            let key = ConnectionKey(index: r.controllerIndex, handle: handle)
            // An (e)SCO link's handle is no ACL connection's (while one is open with it, it is that).
            if !hci.connections.isOpen(key), hfp.audioClosed(key, reason: reason, r) { return }
            disconnected(key, reason, r)
        case .encryption(let status, let handle, let enabled?) where status.isSuccess:
            hci.lifecycle(effect, r)
            att.setEncrypted(ConnectionKey(index: r.controllerIndex, handle: handle), enabled)
        default:
            hci.lifecycle(effect, r)
        }
    }

    private func completed(
        _ status: HCIErrorCode, _ key: ConnectionKey, _ address: BDAddr, _ type: UInt8?,
        _ transport: Transport, _ role: Role, _ parameters: Lifecycle.Parameters?,
        _ r: CaptureRecord
    ) {
        let cancelled = hci.connections.completesCancelledAttempt(index: r.controllerIndex, status: status)
        // A cancelled attempt's peer address is not valid (all zero for LE); nothing names a peer then.
        let info = ConnectionInfo(
            key: key, address: cancelled ? nil : address, addressType: type, transport: transport,
            role: role, openedRecord: r.number, openedTime: r.timestamp, closedRecord: nil,
            closedTime: nil, disconnectReason: nil, inferred: false)
        guard status.isSuccess else {
            let change = ConnectionChange(change: cancelled ? .cancelled : .failed, info: info, code: status)
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil,
                    isTop: true, body: .connection(change)))
            if !cancelled { hci.connectionFailed(info, status: status, r) }
            return
        }
        if hci.connections.isOpen(key) {
            ctx.say(
                r, key.handle,
                Diagnostic(
                    HCIDiagnostics.connectionReplaced,
                    "Connection Complete for handle \(Hex.value(key.handle, width: 4)), which was never disconnected",
                    fields: [("handle", .hex(key.handle))]))
            release(key, r, reason: "a new connection on the same handle")
        }
        _ = hci.connections.opened(info)
        hci.connections.update(key) { $0.parameters = parameters }
        let change = ConnectionChange(change: .opened, info: hci.connections[key] ?? info, code: nil)
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: r.direction, connection: key.handle,
                isTop: true, body: .connection(change)))
    }

    private func disconnected(_ key: ConnectionKey, _ reason: HCIErrorCode, _ r: CaptureRecord) {
        hci.closing(key, reason: reason, lastTraffic: acl.lastTraffic(key), hadATT: att.facts(key) != nil, r)
        release(key, r, reason: "disconnection")
        if let info = hci.connections.closed(key, record: r.number, time: r.timestamp, reason: reason) {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: r.direction, connection: key.handle,
                    isTop: true, body: .connection(ConnectionChange(change: .closed, info: info, code: reason))))
        } else {
            ctx.say(
                r, key.handle,
                Diagnostic(
                    HCIDiagnostics.unknownHandleClosed,
                    "Disconnection Complete for handle \(Hex.value(key.handle, width: 4)), never seen before",
                    fields: [("handle", .hex(key.handle))]))
        }
    }

    /// Frees everything every layer kept for a connection, reporting what was left unfinished.
    private func release(_ key: ConnectionKey, _ r: CaptureRecord, reason: String) {
        let place = RecordPlace(record: r.number, time: r.timestamp)
        for layer in layers { layer.close(key, at: place, reason: reason) }
    }
}
