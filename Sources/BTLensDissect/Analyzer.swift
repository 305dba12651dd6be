import BTLensCore
import BTLensCapture

/// Routes capture records through HCI → ACL → L2CAP → ATT → A5 and emits events, one record at a time.
///
/// State is per open connection (ACL reassembly, ATT bearer, A5 streams) and is freed when the
/// connection closes; GATT databases are kept per peer. Every table is bounded by `Limits`.
///
/// One thread drives an analyzer, one record at a time, and its decoders never call back into it:
/// its state is marked `@exclusivity(unchecked)`, which drops a dozen runtime checks per record.
public final class Analyzer {
    /// Where a characteristic stream's frames came from.
    struct StreamKey {
        var connection: ConnectionKey
        var handle: UInt16
        var direction: Direction
    }

    private let sink: (consuming Event) -> Void
    /// The most severe diagnostic so far (for `--fail-on`).
    @exclusivity(unchecked) public private(set) var worstSeverity: Severity?
    /// What was counted and not sent, in `.counts` detail.
    @exclusivity(unchecked) public private(set) var tally = Tally()
    /// The bounds on everything kept per capture.
    public let limits: Limits
    @exclusivity(unchecked) public internal(set) var connections: ConnectionTable
    @exclusivity(unchecked) var acl: ACLReassembler
    @exclusivity(unchecked) var channels = L2CAPChannelMap()
    /// ATT bearers of open connections and their characteristic streams.
    @exclusivity(unchecked) var attLinks: [ConnectionKey: ATTLink] = [:]
    /// The link of the last ATT PDU, unretained: `attLinks` holds it, and forgetting it there forgets it here.
    @exclusivity(unchecked) private var lastLink: (key: ConnectionKey, link: Unmanaged<ATTLink>)?
    public let gatt: GATTStore
    /// The dissector tables: built-in Swift dissectors and loaded definitions.
    public let dissectors: DissectorTable
    /// Outstanding requests per dissector and connection (or EA session); freed on disconnection.
    @exclusivity(unchecked) var pairings: [PairKey: PairingTracker] = [:]

    struct ChannelKey: Hashable, Comparable {
        var connection: ConnectionKey
        var dlci: UInt8
        static func < (a: ChannelKey, b: ChannelKey) -> Bool { (a.connection, a.dlci) < (b.connection, b.dlci) }
    }

    struct EAKey: Hashable, Comparable {
        var connection: ConnectionKey
        var session: UInt16
        var direction: Direction
        static func < (a: EAKey, b: EAKey) -> Bool {
            (a.connection, a.session, a.direction.rawValue) < (b.connection, b.session, b.direction.rawValue)
        }
    }

    /// RFCOMM channels carrying iAP2 (decided by their first data) and those that do not.
    @exclusivity(unchecked) var iap2Links: [ChannelKey: IAP2Link] = [:]
    @exclusivity(unchecked) var notIAP2: Set<ChannelKey> = []
    /// Channels that might carry iAP2, with their data until it confirms or contradicts that.
    @exclusivity(unchecked) var iap2Guesses: [ChannelKey: IAP2Guess] = [:]
    /// Bytes held by unconfirmed guesses, all channels together (`--limit guess-bytes`).
    @exclusivity(unchecked) var heldBytes = 0
    @exclusivity(unchecked) var eaStreams: [EAKey: BoundStream] = [:]

    struct RFCOMMStreamKey: Hashable, Comparable {
        var channel: ChannelKey
        var direction: Direction
        static func < (a: RFCOMMStreamKey, b: RFCOMMStreamKey) -> Bool {
            (a.channel, a.direction.rawValue) < (b.channel, b.direction.rawValue)
        }
    }

    /// RFCOMM channels whose SDP service class a dissector binds, and their streams.
    @exclusivity(unchecked) var rfcommBindings: [ChannelKey: (dissector: any MessageDissector, framing: Framing)] = [:]
    @exclusivity(unchecked) var rfcommStreams: [RFCOMMStreamKey: BoundStream] = [:]
    /// RFCOMM server channels SDP (or the user) says carry iAP2, per connection.
    @exclusivity(unchecked) var iap2ServerChannels: Set<ChannelKey> = []
    @exclusivity(unchecked) var sdpDecoders: [ACLKey: SDPDecoder] = [:]
    /// Dynamic channels guessed to carry RFCOMM, said once each.
    @exclusivity(unchecked) var guessed: [L2CAPChannelMap.Key: L2CAPGuess] = [:]
    /// Devices seen advertising while the phone scanned.
    @exclusivity(unchecked) public internal(set) var advertisers = AdvertisingTable()
    /// Controller ACL buffer credits, per controller, once a Read Buffer Size completion is seen.
    @exclusivity(unchecked) var flow: [UInt16: FlowState] = [:]
    /// Recent short connections per address (reconnect loops), bounded.
    @exclusivity(unchecked) var shortConnections: [BDAddr: [Lifecycle.Step]] = [:]
    /// The connection of the last ACL packet, known to be open; forgotten at every HCI command or
    /// event (the only records that open or close connections).
    @exclusivity(unchecked) private var lastOpen: ConnectionKey?
    @exclusivity(unchecked) private var lastRecord = 0
    @exclusivity(unchecked) private var lastTime = Timestamp(microseconds: 0)

    let decodeAs: [DecodeAs]

    /// False when no consumer shows ACL fragments and L2CAP PDUs (`--verbose`): they are not built.
    let lowerLayers: Bool
    /// How much of each PDU the consumer reads.
    public enum Detail: Sendable {
        /// Every event, with the bytes of values and frames: the timeline and the report.
        case full
        /// What `stats` reads. ATT PDUs, and frames that no dissector decodes, are counted in `tally`
        /// and not sent as events; the bytes of ATT values and of those frames are not copied out of
        /// the capture. Their streams still read the values where they lie.
        case counts
    }
    let detail: Detail
    /// The bytes of values and of frames no dissector decodes are copied out for the events.
    var valueBytes: Bool { detail == .full }

    public init(_ configuration: Configuration = Configuration(), emit: @escaping (consuming Event) -> Void) {
        let limits = configuration.limits
        self.limits = limits
        connections = ConnectionTable(historyLimit: limits.connectionHistory)
        acl = ACLReassembler(limit: limits.reassemblyBytes)
        gatt = GATTStore(databaseLimit: limits.gattDatabases)
        decodeAs = configuration.decodeAs
        dissectors = configuration.dissectors
        lowerLayers = configuration.lowerLayers
        detail = configuration.detail
        self.sink = emit
    }

    func emit(_ e: consuming Event) {
        if case .diagnostic(let d) = e.body, worstSeverity.map({ d.severity > $0 }) ?? true { worstSeverity = d.severity }
        sink(e)
    }

    /// Every diagnostic kind the decoders can raise.
    public static let diagnosticKinds: [DiagnosticKind] =
        (CaptureDiagnostics.all + HCIDiagnostics.all + L2CAPDiagnostics.all + RFCOMMDiagnostics.all + SDPDiagnostics.all
         + IAP2Diagnostics.all
         + ATTDiagnostics.all + A5Diagnostics.all + DissectorDiagnostics.all + LifecycleDiagnostics.all)
        .sorted { $0.id < $1.id }

    public func process(_ item: borrowing CaptureItem) {
        switch item {
        case .record(let r): process(r)
        case .problem(let p):
            var d = p.diagnostic
            if d.packetOffset == nil { d.fields.append(("offset", .int(p.fileOffset))) }
            emit(Event(record: p.recordNumber, timestamp: lastTime, direction: nil, connection: nil, isTop: true,
                       body: .diagnostic(d)))
        }
    }

    public func process(_ r: CaptureRecord) {
        checkTime(r)
        lastRecord = r.number
        lastTime = r.timestamp
        if r.isTruncated && r.kind != .note { truncated(r) }
        switch r.kind {
        case .note:
            emit(Event(record: r.number, timestamp: r.timestamp, direction: nil, connection: nil, isTop: true,
                       body: .note(category: r.noteCategory, text: r.noteText)))
        case .command:
            command(r)
        case .event:
            event(r)
        case .aclData:
            aclData(r)
        case .scoData, .isoData:
            if r.kind == .scoData { scoLength(r) }
            undecoded(r, nil, r.kind == .scoData ? "SCO audio" : "ISO data", r.payload)
        case .unknown:
            var d = Diagnostic(CaptureDiagnostics.unknownPacketType, "\(r.noteCategory): not an HCI packet type btlens knows")
            d.undecodedBytes = r.payload.count
            say(r, nil, d)
        }
    }

    /// An SCO packet's header (Core Vol 4 Part E §5.4.3: handle, 1-byte length) against its record:
    /// a length that disagrees is said (the audio bytes stay undecoded either way).
    private func scoLength(_ r: CaptureRecord) {
        guard r.payload.count >= 3 else { return malformedHeader(r, "SCO packet", need: 3) }
        let declared = Int(r.payload[r.payload.startIndex + 2]), present = r.payload.count - 3
        guard declared != present, !(r.isTruncated && present < declared) else { return }
        say(r, nil, Diagnostic(HCIDiagnostics.lengthMismatch,
                               "SCO packet: parameter length says \(declared) bytes, the record holds \(present)",
                               fields: [("declared", .int(declared)), ("present", .int(present))]))
    }

    /// A record the capture cut short. A capture that cuts packets of a kind to one length (Android's
    /// filtered mode cuts ACL to 14 bytes in whichever direction it filters; a snap length) is a
    /// condition of the file: it is said at its first record, and the records after it cut the same
    /// way, like the continuations of the PDUs it cut, are lower-layer detail (`--verbose`).
    private func truncated(_ r: CaptureRecord) {
        let cut = CutCondition(kind: r.kind.name, kept: r.payload.count)
        if saidCuts.contains(cut) || saidCuts.count >= 16 {
            var d = Diagnostic(CaptureDiagnostics.recordTruncated,
                               "the capture kept \(r.payload.count) of \(r.originalLength) bytes of this \(r.kind.name) packet",
                               fields: [("have", .int(r.payload.count)), ("original", .int(r.originalLength))])
            d.undecodedBytes = 0
            return emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: false,
                              body: .diagnostic(d)))
        }
        saidCuts.insert(cut)
        if r.kind == .aclData && r.payload.count == CaptureDiagnostics.androidFilteredACLLength {
            androidFiltered = true
            return say(r, nil, Diagnostic(CaptureDiagnostics.androidFiltered,
                                          "ACL packets cut to \(r.payload.count) bytes (this one had \(r.originalLength)): an Android filtered snoop log; payloads are not in the file, and what the cuts leave undecoded is shown with --verbose only. Set \"Enable Bluetooth HCI snoop log\" to Enabled (full) to capture them"))
        }
        say(r, nil, Diagnostic(CaptureDiagnostics.recordTruncated,
                               "the capture kept \(r.payload.count) of \(r.originalLength) bytes of this \(r.kind.name) packet; other \(r.kind.name) packets cut to \(r.payload.count) bytes are shown with --verbose",
                               fields: [("have", .int(r.payload.count)), ("original", .int(r.originalLength))]))
    }

    /// A way the capture cuts records: their kind and the bytes it keeps.
    private struct CutCondition: Hashable { var kind: String; var kept: Int }
    /// The cut conditions said so far (at most 16; past that every cut is detail).
    @exclusivity(unchecked) private var saidCuts: Set<CutCondition> = []

    @exclusivity(unchecked) private var saidAbsurdTime = false

    /// Time that runs backwards, or lies outside any plausible date, is said (the latter once).
    private func checkTime(_ r: CaptureRecord) {
        let t = r.timestamp.microseconds
        // Hostile times can be anywhere in Int64: the difference saturates (and is absurd, said below).
        let back = lastTime.elapsed(since: r.timestamp)
        if lastRecord > 0, back > CaptureDiagnostics.backwardsTolerance {
            say(r, nil, Diagnostic(CaptureDiagnostics.timeBackwards,
                                   "timestamp \(r.timestamp.iso8601) is \(lastTime.offset(from: r.timestamp)) s before record #\(lastRecord)'s (\(lastTime.iso8601))",
                                   fields: [("back_us", .int(back)), ("previous_record", .int(lastRecord))]))
        }
        if !saidAbsurdTime, !CaptureDiagnostics.plausibleTimes.contains(t) {
            saidAbsurdTime = true
            say(r, nil, Diagnostic(CaptureDiagnostics.timeAbsurd,
                                   "timestamp \(r.timestamp.iso8601) is outside 2000–2100; times are shown as recorded",
                                   fields: [("time_us", .int(t))]))
        }
    }

    /// True once a 14-byte ACL cut has been seen.
    @exclusivity(unchecked) public private(set) var androidFiltered = false

    /// End of the capture: whatever is still being reassembled is reported, not dropped.
    public func finish() {
        for (key, d, _) in acl.finish() {
            emit(Event(record: lastRecord, timestamp: lastTime, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: .diagnostic(with(d, undecoded: d.field("have")))))
        }
        for (key, link) in attLinks.sorted(by: { $0.key < $1.key }) {
            for s in link.finishStreams(reason: "the end of the capture") {
                for o in s.outputs {
                    a5(o, key: StreamKey(connection: key, handle: s.handle, direction: s.direction), stream: s.label,
                       record: lastRecord, time: lastTime)
                }
            }
        }
        settleGuesses(nil)
        for key in iap2Links.keys.sorted() { endIAP2(key, record: lastRecord, time: lastTime, reason: "the end of the capture") }
        endRFCOMM(nil, record: lastRecord, time: lastTime, reason: "the end of the capture")
        for connection in Set(pairings.keys.map(\.connection)).sorted() {
            endPairings(connection, record: lastRecord, time: lastTime, reason: "the end of the capture")
        }
    }

    // MARK: HCI

    private func command(_ r: CaptureRecord) {
        lastOpen = nil
        guard let decoded = HCIDecoder.command(r.payload, truncated: r.isTruncated) else {
            return malformedHeader(r, "HCI command", need: 3)
        }
        emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                   body: .hciCommand(decoded.info)))
        for d in decoded.diagnostics { say(r, nil, d) }
        if let effect = decoded.effect { apply(effect, r) }
    }

    private func event(_ r: CaptureRecord) {
        lastOpen = nil
        guard let decoded = HCIDecoder.event(r.payload, truncated: r.isTruncated) else {
            return malformedHeader(r, "HCI event", need: 2)
        }
        emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                   body: .hciEvent(decoded.info)))
        for d in decoded.diagnostics { say(r, nil, d) }
        if let effect = decoded.effect { apply(effect, r) }
    }

    private func malformedHeader(_ r: CaptureRecord, _ what: String, need: Int) {
        var d = Diagnostic(HCIDiagnostics.malformed, "\(what) of \(r.payload.count) bytes: its header needs \(need)",
                           fields: [("have", .int(r.payload.count)), ("need", .int(need))], packetOffset: 0)
        d.undecodedBytes = r.payload.count
        say(r, nil, d)
    }

    private func apply(_ effect: HCIConnectionEffect, _ r: CaptureRecord) {
        switch effect {
        case .hostConnects(let a): connections.hostCreatesConnection(to: a)
        case .peerRequests(let a): connections.peerRequestsConnection(from: a)
        case .hostCancels: connections.hostCancelsConnection(index: r.controllerIndex)
        case .cancelRefused: connections.cancelRefused(index: r.controllerIndex)
        case .roleChanged(let address, let role):
            for (key, info) in connections.open where info.address == address { connections.setRole(key, role) }
        case .completed(let status, let handle, let address, let type, let transport, let role, let parameters):
            let key = ConnectionKey(index: r.controllerIndex, handle: handle)
            let cancelled = connections.completesCancelledAttempt(index: r.controllerIndex, status: status)
            // A cancelled attempt's peer address is not valid (all zero for LE); nothing names a peer then.
            let info = ConnectionInfo(key: key, address: cancelled ? nil : address, addressType: type, transport: transport,
                                      role: role, openedRecord: r.number, openedTime: r.timestamp, closedRecord: nil,
                                      closedTime: nil, disconnectReason: nil, inferred: false)
            guard status.isSuccess else {
                emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                           body: .connection(ConnectionChange(change: cancelled ? .cancelled : .failed, info: info, code: status))))
                if !cancelled { connectionFailed(info, status: status, r) }
                return
            }
            if connections.isOpen(key) {
                say(r, handle, Diagnostic(HCIDiagnostics.connectionReplaced,
                                          "Connection Complete for handle \(Hex.value(handle, width: 4)), which was never disconnected",
                                          fields: [("handle", .hex(handle))]))
                release(key, r, reason: "a new connection on the same handle")
            }
            _ = connections.opened(info)
            connections.update(key) { $0.parameters = parameters }
            emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle, isTop: true,
                       body: .connection(ConnectionChange(change: .opened, info: connections[key] ?? info, code: nil))))
        case .disconnected(let status, let handle, let reason):
            guard status.isSuccess else { return }
            let key = ConnectionKey(index: r.controllerIndex, handle: handle)
            closing(key, reason: reason, lastTraffic: acl.lastTraffic(key), r)
            release(key, r, reason: "disconnection")
            if let info = connections.closed(key, record: r.number, time: r.timestamp, reason: reason) {
                emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle,
                           isTop: true, body: .connection(ConnectionChange(change: .closed, info: info, code: reason))))
            } else {
                say(r, handle, Diagnostic(HCIDiagnostics.unknownHandleClosed,
                                          "Disconnection Complete for handle \(Hex.value(handle, width: 4)), never seen before",
                                          fields: [("handle", .hex(handle))]))
            }
        default:
            lifecycle(effect, r)
        }
    }

    /// Frees everything kept for a connection, reporting what was left unfinished.
    private func release(_ key: ConnectionKey, _ r: CaptureRecord, reason: String) {
        for (direction, d, _) in acl.close(key) {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .diagnostic(with(d, undecoded: d.field("have")))))
        }
        if lastLink?.key == key { lastLink = nil }
        if let link = attLinks.removeValue(forKey: key) {
            connections.update(key) { $0.take(link.decoder.facts) }
            for s in link.finishStreams(reason: reason) {
                for o in s.outputs {
                    a5(o, key: StreamKey(connection: key, handle: s.handle, direction: s.direction), stream: s.label,
                       record: r.number, time: r.timestamp)
                }
            }
        }
        channels.close(key)
        settleGuesses(key)
        for ck in iap2Links.keys.filter({ $0.connection == key }).sorted() {
            endIAP2(ck, record: r.number, time: r.timestamp, reason: reason)
        }
        endRFCOMM(key, record: r.number, time: r.timestamp, reason: reason)
        endPairings(key, record: r.number, time: r.timestamp, reason: reason)
        notIAP2 = notIAP2.filter { $0.connection != key }
        iap2ServerChannels = iap2ServerChannels.filter { $0.connection != key }
        sdpDecoders = sdpDecoders.filter { $0.key.connection != key }
        guessed = guessed.filter { $0.key.connection != key }
    }

    // MARK: ACL and L2CAP

    private func aclData(_ r: CaptureRecord) {
        // The header is read in place, and the fragment sliced once: a reader over the payload
        // would count a reference of its own.
        guard let word = ByteReader.u16le(in: r.payload, at: 0), let length = ByteReader.u16le(in: r.payload, at: 2) else {
            return malformedHeader(r, "ACL packet", need: 4)
        }
        let handle = word & 0x0fff
        let boundary = UInt8(word >> 12 & 0x3)
        let direction = r.direction ?? .sent
        var fragment = r.payload.dropFirst(4)
        if fragment.count != Int(length), !(r.isTruncated && fragment.count < Int(length)) {
            var d = Diagnostic(HCIDiagnostics.lengthMismatch,
                               "ACL data length says \(length) bytes, the record holds \(fragment.count)",
                               fields: [("declared", .int(length)), ("present", .int(fragment.count))], packetOffset: 2)
            d.undecodedBytes = max(0, fragment.count - Int(length))
            say(r, handle, d)
            fragment = fragment.prefix(Int(length))
        }
        let key = ConnectionKey(index: r.controllerIndex, handle: handle)
        if key != lastOpen {
            if !connections.isOpen(key) { inferConnection(key, boundary: boundary, fragment: fragment, r) }
            lastOpen = key
        }
        if direction == .sent, !flow.isEmpty { sentACL(r) }
        if lowerLayers {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: handle, isTop: false,
                   body: .acl(ACLFragmentInfo(handle: handle, boundary: boundary, broadcast: UInt8(word >> 14),
                                              length: Int(length)))))
        }
        var out = acl.push(ACLKey(key, direction), boundary: boundary, fragment: consume fragment, record: r.number,
                           time: r.timestamp, cutByCapture: r.isTruncated)
        for d in out.diagnostics {
            let d = with(d, undecoded: d.field("bytes") ?? d.field("extra") ?? d.field("have"))
            // The cut that left a PDU's continuation without its start was said already.
            emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle,
                       isTop: d.kind != L2CAPDiagnostics.continuationAfterCut, body: .diagnostic(d)))
        }
        if let pdu = out.pdu.take() { l2cap(consume pdu, key, direction, r) }
    }

    private func inferConnection(_ key: ConnectionKey, boundary: UInt8, fragment: ArraySlice<UInt8>, _ r: CaptureRecord) {
        var transport = Transport.unknown
        if boundary != 0b01, fragment.count >= 4 {
            let cid = UInt16(fragment[fragment.startIndex + 2]) | UInt16(fragment[fragment.startIndex + 3]) << 8
            transport = [0x0004, 0x0005, 0x0006].contains(cid) ? .le : (cid == 0x0001 || cid >= 0x0040 ? .bredr : .unknown)
        }
        let info = connections.infer(key, record: r.number, time: r.timestamp, transport: transport)
        emit(Event(record: r.number, timestamp: r.timestamp, direction: nil, connection: key.handle, isTop: true,
                   body: .connection(ConnectionChange(change: .inferred, info: info, code: nil))))
        say(r, key.handle, Diagnostic(HCIDiagnostics.connectionInferred,
                                      "traffic on handle \(Hex.value(key.handle, width: 4)) with no Connection Complete in the capture: the capture began mid-connection",
                                      fields: [("handle", .hex(key.handle))]))
    }

    private func l2cap(_ pdu: consuming L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        if lowerLayers {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: false,
                       body: .l2cap(L2CAPInfo(cid: pdu.cid, length: pdu.declaredLength, firstRecord: pdu.firstRecord,
                                              truncated: pdu.truncated))))
        }
        switch pdu.cid {
        case L2CAPChannel.att:
            att(consume pdu, key, direction, r, fixedChannel: true)
        case L2CAPChannel.signaling, L2CAPChannel.leSignaling:
            signaling(pdu, key, direction, r)
        case L2CAPChannel.smp, L2CAPChannel.bredrSMP:
            smp(pdu, key, direction, r)
        case 0x0040...:
            // A channel with no captured setup is forced, guessed, or shown undecoded there.
            switch channels.psm(key, direction, pdu.cid) ?? unsignalledPSM(pdu, key, direction, r) {
            case PSM.rfcomm?: rfcomm(pdu.payload, key, direction, r)
            case PSM.att?: att(consume pdu, key, direction, r)
            case PSM.sdp?: sdp(pdu.payload, ACLKey(key, direction), r)
            case let psm?: undecoded(r, key.handle, PSM.name(psm), pdu.payload)
            case nil: break
            }
        default:
            undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
        }
    }

    func undecoded(_ r: CaptureRecord, _ handle: UInt16?, _ what: String, _ bytes: ArraySlice<UInt8>) {
        undecoded(record: r.number, time: r.timestamp, direction: r.direction, handle, what, bytes)
    }

    /// Bytes no decoder takes, the first `--limit undecoded-bytes` of them kept (none for `.counts`).
    func undecoded(record: Int, time: Timestamp, direction: Direction?, _ handle: UInt16?, _ what: String,
                   _ bytes: ArraySlice<UInt8>) {
        let kept = Array(bytes.prefix(valueBytes ? limits.undecodedBytes : 0))
        emit(Event(record: record, timestamp: time, direction: direction, connection: handle, isTop: true,
                   body: .undecoded(UndecodedInfo(what: what, length: bytes.count, bytes: kept))))
    }

    // MARK: ATT and A5

    /// The PDU is taken: its bytes move into the ATT decoder's reader, not copied.
    func att(_ pdu: consuming L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord, fixedChannel: Bool = false) {
        let truncated = pdu.truncated
        var reader = ByteReader(pdu.takePayload())
        // Lent, not retained: nothing a PDU does closes its connection.
        attLink(key, le: fixedChannel)._withUnsafeGuaranteedRef { att(&reader, truncated, key, direction, r, $0) }
    }

    private func att(_ reader: inout ByteReader, _ truncated: Bool, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord,
                     _ link: ATTLink) {
        var result = ATTResult()
        link.decoder.decode(&reader, direction: direction, record: r.number, time: r.timestamp, truncated: truncated, into: &result)

        // What is read of the info later is read now: the info itself moves into its event.
        let fromServer = result.info.opcode.isFromServer
        let readResponse = result.info.opcode == .readResponse && !result.info.truncated
            ? result.info.handle.flatMap { h in result.info.value.map { (h, result.info.uuid, $0) } } : nil
        if detail == .full {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: true,
                       body: .att(result.takeInfo())))
        } else {
            tally.attOpcodes[Int(result.info.opcode.rawValue)] += 1
        }
        for d in result.diagnostics { say(r, key.handle, d, direction) }
        for v in result.gattValues {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .gattValue(v)))
            if v.kind == .longRead { readValue(v.handle, v.uuid, v.value[...], key, direction, r) }
        }
        if let (handle, uuid, value) = readResponse { readValue(handle, uuid, value, key, direction, r) }
        for handle in result.streamHoles {
            guard let slot = link.slot(handle, direction) else { continue }
            let (outs, label) = link.hole(slot)
            for o in outs {
                a5(o, key: StreamKey(connection: key, handle: handle, direction: direction), stream: label,
                   record: r.number, time: r.timestamp)
            }
        }
        // The closures take what they need of the record, not a copy of it; the PDU's bytes are
        // lent to them once, not retained for each value.
        let (number, time, start) = (r.number, r.timestamp, reader.bytes.startIndex)
        reader.bytes.withUnsafeBufferPointer { pdu in
            result.streamValues.forEachLent { handle, value in
                var slot = link.slot(handle, direction)
                if slot == nil, link.streams.count < limits.streamsPerConnection {
                    // The characteristic's UUID is looked up once, when its stream starts.
                    let serverIsPeer = fromServer ? direction == .received : direction == .sent
                    let uuid = gatt.uuid(GATTStore.Key(peer: peer(key), serverIsPeer: serverIsPeer), handle)
                    slot = link.add(boundStream(handle: handle, uuid: uuid, connection: key, direction: direction),
                                    handle: handle, direction: direction)
                }
                guard let slot else { return }
                value.withBytes(in: pdu, startIndex: start) { bytes in
                    link.push(slot, bytes, at: RecordPlace(record: number, time: time)) { o, label in
                        a5(o, key: StreamKey(connection: key, handle: handle, direction: direction), stream: label,
                           record: number, time: time)
                    }
                }
            }
        }
    }

    /// A connection's ATT link: the last one used, or the one in the table, or a new one with the
    /// connection's first PDU. The ATT fixed channel (CID 4) is LE's: an inferred connection learns
    /// its transport from it.
    private func attLink(_ key: ConnectionKey, le: Bool) -> Unmanaged<ATTLink> {
        if let last = lastLink, last.key == key { return last.link }
        let link: ATTLink
        if let known = attLinks[key] {
            link = known
        } else {
            if le { connections.setTransport(key, .le) }
            var d = ATTDecoder(gatt: gatt, peer: peer(key))
            d.facts.inferred = connections[key]?.inferred ?? true
            d.facts.encrypted = connections[key]?.lifecycle.encrypted ?? false
            d.keepsValues = valueBytes
            link = ATTLink(d)
            attLinks[key] = link
        }
        lastLink = (key, .passUnretained(link))
        return .passUnretained(link)
    }

    /// Every connection seen, with what their ATT bearers know so far for those still open.
    public var connectionSummaries: [ConnectionInfo] {
        connections.all.map { c in
            guard c.closedRecord == nil, let facts = attLinks[c.key]?.decoder.facts else { return c }
            var c = c
            c.lifecycle.take(facts)
            return c
        }
    }

    /// Whose GATT database a connection sees: its peer's, by address when the capture has it.
    private func peer(_ key: ConnectionKey) -> PeerID {
        connections[key]?.address.map(PeerID.address) ?? .connection(key)
    }

    /// A value read whole (Read Response, long read): one message when a value-per-message dissector is bound.
    private func readValue(_ handle: UInt16, _ uuid: BluetoothUUID?, _ value: ArraySlice<UInt8>, _ key: ConnectionKey,
                           _ direction: Direction, _ r: CaptureRecord) {
        let forced = decodeAs.contains { if case .attHandle(handle, _) = $0 { return true } else { return false } }
        guard forced || uuid.flatMap({ dissectors.lookup(.characteristic($0), on: device(key)) }) != nil else { return }
        var s = boundStream(handle: handle, uuid: uuid, connection: key, direction: direction)
        guard s.dissector != nil, s.framing == nil else { return }
        let (number, time) = (r.number, r.timestamp)
        s.push(value, at: RecordPlace(record: number, time: time)) { o, label in
            a5(o, key: StreamKey(connection: key, handle: handle, direction: direction), stream: label,
               record: number, time: time)
        }
    }

    private func a5(_ output: consuming A5Stream.Output, key: StreamKey, stream: BoundStream.Label, record: Int, time: Timestamp) {
        a5Event(output, stream: ("att_handle", .hex(key.handle)), bound: stream,
                pairKey: stream.dissectorName.map { PairKey(connection: key.connection, dissector: $0) },
                direction: key.direction, connection: key.connection.handle, record: record, time: time) { f, naming in
            A5FrameInfo(frame: f, transport: .att, attHandle: key.handle, uuid: stream.uuid, naming)
        }
    }

    /// A stream's output as events, whatever carried the stream: a frame labelled by `info` and
    /// decoded by the stream's dissector, a diagnostic tagged with the stream it came from.
    func a5Event(_ output: consuming A5Stream.Output, stream: (String, FieldValue), bound: BoundStream.Label, pairKey: PairKey?,
                 direction: Direction, connection: UInt16, record: Int, time: Timestamp,
                 info: (consuming A5Frame, consuming A5FrameInfo.Naming) -> A5FrameInfo) {
        func send(_ body: consuming EventBody, _ from: Direction? = nil) {
            emit(Event(record: record, timestamp: time, direction: from ?? direction, connection: connection, isTop: true, body: body))
        }
        func tagged(_ d: Diagnostic) -> EventBody {
            var d = d
            d.fields.append(stream)
            return .diagnostic(with(d, undecoded: d.field("skipped_bytes") ?? d.field("have")))
        }
        switch consume output {
        case .frame(let f):
            // A stream with a dissector has a pair key: the key is checked first, as it costs no copy.
            guard let pairKey, let d = bound.dissector else {
                guard detail == .full else { return count(f, a5: bound.isA5, direction: direction) }
                return send(.a5(info(consume f, A5FrameInfo.Naming(bound))))
            }
            var naming = A5FrameInfo.Naming(bound)
            let (before, after) = dissect(f, &naming, uuid: bound.uuid, dissector: d, pairKey: pairKey, direction: direction,
                                          record: record, time: time)
            // Requests that timed out: the phone's, whichever stream noticed.
            for diagnostic in before { send(.diagnostic(diagnostic), .sent) }
            send(.a5(info(consume f, consume naming)))
            for diagnostic in after { send(tagged(diagnostic)) }
        case .diagnostic(var d):
            let began = d.began
            d.began = nil
            guard let began, began.record != record else { return send(tagged(d)) }
            // Put where the problem began; where it showed is kept beside it.
            d.fields.append(("detected_record", .int(record)))
            emit(Event(record: began.record, timestamp: began.time, direction: direction, connection: connection, isTop: true,
                       body: tagged(d)))
        }
    }

    /// A frame no dissector decodes, counted and not sent.
    private func count(_ f: borrowing A5Frame, a5: Bool, direction: Direction) {
        guard a5 else { return }
        tally.a5Frames[Int(direction.rawValue)] += 1
        if !f.checksumOK { tally.a5BadChecksum += 1 }
    }

    // MARK: helpers

    func say(_ r: CaptureRecord, _ handle: UInt16?, _ d: Diagnostic, _ direction: Direction? = nil) {
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction ?? r.direction, connection: handle,
                   isTop: true, body: .diagnostic(d)))
    }

    func with(_ d: Diagnostic, undecoded: FieldValue?) -> Diagnostic {
        var d = d
        if d.undecodedBytes == 0, case .int(let n)? = undecoded { d.undecodedBytes = Int(n) }
        return d
    }
}
