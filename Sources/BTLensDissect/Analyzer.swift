import BTLensCore
import BTLensCapture

/// Routes capture records through HCI → ACL → L2CAP → ATT → A5 and emits events, one record at a time.
///
/// State is per open connection (ACL reassembly, ATT bearer, A5 streams) and is freed when the
/// connection closes; GATT databases are kept per peer, bounded by `GATTStore.databaseLimit`.
public final class Analyzer {
    /// A5 streams kept per connection; a server has few characteristics that carry data.
    public static let streamLimitPerConnection = 1024

    struct StreamKey: Hashable, Comparable {
        var connection: ConnectionKey
        var handle: UInt16
        var direction: Direction
        static func < (a: StreamKey, b: StreamKey) -> Bool {
            (a.connection, a.handle, a.direction.rawValue) < (b.connection, b.handle, b.direction.rawValue)
        }
    }

    private let emit: (Event) -> Void
    public private(set) var connections = ConnectionTable()
    private var acl = ACLReassembler()
    private var channels = L2CAPChannelMap()
    private var bearers: [ConnectionKey: ATTBearer] = [:]
    public private(set) var gatt = GATTStore()
    private var streams: [StreamKey: A5Stream] = [:]

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
    private var iap2Links: [ChannelKey: IAP2Link] = [:]
    private var notIAP2: Set<ChannelKey> = []
    /// The first bytes of a channel that might be iAP2, held until a whole header (9 bytes) can be checked.
    private var undecided: [ChannelKey: [UInt8]] = [:]
    private var eaStreams: [EAKey: A5Stream] = [:]
    /// RFCOMM server channels SDP (or the user) says carry iAP2, per connection.
    private var iap2ServerChannels: Set<ChannelKey> = []
    private var sdpDecoders: [ACLKey: SDPDecoder] = [:]
    /// Dynamic channels whose PSM was guessed, said once each.
    private var guessed: [L2CAPChannelMap.Key: UInt16] = [:]
    private var streamCount: [ConnectionKey: Int] = [:]
    private var lastRecord = 0
    private var lastTime = Timestamp(microseconds: 0)

    /// A binding forced by the user (`--decode-as`): a channel whose setup is not in the capture.
    public enum DecodeAs: Equatable, Sendable {
        /// An L2CAP dynamic CID (as seen in either direction) carries this PSM.
        case cid(UInt16, psm: UInt16)
        /// An RFCOMM server channel carries iAP2.
        case rfcommIAP2(channel: UInt8)

        /// Parses `0x0041=rfcomm`, `0x0041=att`, `rfcomm:3=iap2`.
        public init?(_ text: String) {
            let parts = text.lowercased().split(separator: "=").map(String.init)
            guard parts.count == 2 else { return nil }
            if parts[0].hasPrefix("rfcomm:"), parts[1] == "iap2", let ch = UInt8(parts[0].dropFirst(7)) {
                self = .rfcommIAP2(channel: ch)
                return
            }
            let digits = parts[0].hasPrefix("0x") ? String(parts[0].dropFirst(2)) : parts[0]
            guard let cid = UInt16(digits, radix: 16) else { return nil }
            switch parts[1] {
            case "rfcomm": self = .cid(cid, psm: PSM.rfcomm)
            case "att": self = .cid(cid, psm: PSM.att)
            case "sdp": self = .cid(cid, psm: PSM.sdp)
            default: return nil
            }
        }
    }

    private let decodeAs: [DecodeAs]

    public init(decodeAs: [DecodeAs] = [], emit: @escaping (Event) -> Void) {
        self.decodeAs = decodeAs
        self.emit = emit
    }

    /// Every diagnostic kind the decoders can raise.
    public static let diagnosticKinds: [DiagnosticKind] =
        (CaptureDiagnostics.all + HCIDiagnostics.all + L2CAPDiagnostics.all + RFCOMMDiagnostics.all + SDPDiagnostics.all
         + IAP2Diagnostics.all
         + ATTDiagnostics.all + A5Diagnostics.all)
        .sorted { $0.id < $1.id }

    public func process(_ item: CaptureItem) {
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
            undecoded(r, nil, r.kind == .scoData ? "SCO audio" : "ISO data", r.payload)
        case .unknown:
            var d = Diagnostic(CaptureDiagnostics.unknownPacketType, "\(r.noteCategory): not an HCI packet type btlens knows")
            d.undecodedBytes = r.payload.count
            say(r, nil, d)
        }
    }

    /// A record the capture cut short. Android's filtered mode cuts every ACL packet to 14 bytes:
    /// that is said once, not as a note on each of thousands of records.
    private func truncated(_ r: CaptureRecord) {
        let filteredCut = r.kind == .aclData && r.payload.count == CaptureDiagnostics.androidFilteredACLLength
        if filteredCut && androidFiltered { return }
        if filteredCut {
            androidFiltered = true
            say(r, nil, Diagnostic(CaptureDiagnostics.androidFiltered,
                                   "ACL packets cut to \(r.payload.count) bytes (this one had \(r.originalLength)): an Android filtered snoop log; payloads are not in the file. Set \"Enable Bluetooth HCI snoop log\" to Enabled (full) to capture them"))
            return
        }
        say(r, nil, Diagnostic(CaptureDiagnostics.recordTruncated,
                               "the capture kept \(r.payload.count) of \(r.originalLength) bytes of this \(r.kind.name) packet",
                               fields: [("have", .int(r.payload.count)), ("original", .int(r.originalLength))]))
    }

    /// True once a 14-byte ACL cut has been seen.
    public private(set) var androidFiltered = false

    /// End of the capture: whatever is still being reassembled is reported, not dropped.
    public func finish() {
        for (key, d, _) in acl.finish() {
            emit(Event(record: lastRecord, timestamp: lastTime, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: .diagnostic(with(d, undecoded: d.field("have")))))
        }
        for key in streams.keys.sorted() {
            guard var s = streams[key] else { continue }
            let outs = s.finish(reason: "the end of the capture")
            a5(outs, key: key, record: lastRecord, time: lastTime, uuid: nil)
        }
        streams.removeAll()
        for key in iap2Links.keys.sorted() { endIAP2(key, record: lastRecord, time: lastTime, reason: "the end of the capture") }
    }

    // MARK: HCI

    private func command(_ r: CaptureRecord) {
        guard let decoded = HCIDecoder.command(r.payload, truncated: r.isTruncated) else {
            return malformedHeader(r, "HCI command", need: 3)
        }
        emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                   body: .hciCommand(decoded.info)))
        for d in decoded.diagnostics { say(r, nil, d) }
        if let effect = decoded.effect { apply(effect, r) }
    }

    private func event(_ r: CaptureRecord) {
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
        case .roleChanged(let address, let role):
            for (key, info) in connections.open where info.address == address { connections.setRole(key, role) }
        case .completed(let status, let handle, let address, let type, let transport, let role):
            let key = ConnectionKey(index: r.controllerIndex, handle: handle)
            let info = ConnectionInfo(key: key, address: address, addressType: type, transport: transport, role: role,
                                      openedRecord: r.number, openedTime: r.timestamp, closedRecord: nil,
                                      closedTime: nil, disconnectReason: nil, inferred: false)
            guard status.isSuccess else {
                emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil,
                           isTop: true, body: .connection(ConnectionChange(change: .failed, info: info, code: status))))
                return
            }
            if connections[key] != nil {
                say(r, handle, Diagnostic(HCIDiagnostics.connectionReplaced,
                                          "Connection Complete for handle \(Hex.value(handle, width: 4)), which was never disconnected",
                                          fields: [("handle", .hex(handle))]))
                release(key, r, reason: "a new connection on the same handle")
            }
            _ = connections.opened(info)
            emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle, isTop: true,
                       body: .connection(ConnectionChange(change: .opened, info: connections[key] ?? info, code: nil))))
        case .disconnected(let status, let handle, let reason):
            guard status.isSuccess else { return }
            let key = ConnectionKey(index: r.controllerIndex, handle: handle)
            release(key, r, reason: "disconnection")
            if let info = connections.closed(key, record: r.number, time: r.timestamp, reason: reason) {
                emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle,
                           isTop: true, body: .connection(ConnectionChange(change: .closed, info: info, code: reason))))
            } else {
                say(r, handle, Diagnostic(HCIDiagnostics.unknownHandleClosed,
                                          "Disconnection Complete for handle \(Hex.value(handle, width: 4)), never seen before",
                                          fields: [("handle", .hex(handle))]))
            }
        }
    }

    /// Frees everything kept for a connection, reporting what was left unfinished.
    private func release(_ key: ConnectionKey, _ r: CaptureRecord, reason: String) {
        for (direction, d, _) in acl.close(key) {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .diagnostic(with(d, undecoded: d.field("have")))))
        }
        bearers[key] = nil
        channels.close(key)
        streamCount[key] = nil
        for sk in streams.keys.filter({ $0.connection == key }).sorted() {
            guard var s = streams.removeValue(forKey: sk) else { continue }
            a5(s.finish(reason: reason), key: sk, record: r.number, time: r.timestamp, uuid: nil)
        }
        for ck in iap2Links.keys.filter({ $0.connection == key }).sorted() {
            endIAP2(ck, record: r.number, time: r.timestamp, reason: reason)
        }
        notIAP2 = notIAP2.filter { $0.connection != key }
        undecided = undecided.filter { $0.key.connection != key }
        iap2ServerChannels = iap2ServerChannels.filter { $0.connection != key }
        sdpDecoders = sdpDecoders.filter { $0.key.connection != key }
        guessed = guessed.filter { $0.key.connection != key }
    }

    // MARK: ACL and L2CAP

    private func aclData(_ r: CaptureRecord) {
        var reader = ByteReader(r.payload)
        guard let word = try? reader.u16le(), let length = try? reader.u16le() else {
            return malformedHeader(r, "ACL packet", need: 4)
        }
        let handle = word & 0x0fff
        let boundary = UInt8(word >> 12 & 0x3)
        let direction = r.direction ?? .sent
        var fragment = reader.rest()
        if fragment.count != Int(length), !(r.isTruncated && fragment.count < Int(length)) {
            var d = Diagnostic(HCIDiagnostics.lengthMismatch,
                               "ACL data length says \(length) bytes, the record holds \(fragment.count)",
                               fields: [("declared", .int(length)), ("present", .int(fragment.count))], packetOffset: 2)
            d.undecodedBytes = max(0, fragment.count - Int(length))
            say(r, handle, d)
            fragment = fragment.prefix(Int(length))
        }
        let key = ConnectionKey(index: r.controllerIndex, handle: handle)
        if connections[key] == nil { inferConnection(key, boundary: boundary, fragment: fragment, r) }
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: handle, isTop: false,
                   body: .acl(ACLFragmentInfo(handle: handle, boundary: boundary, broadcast: UInt8(word >> 14),
                                              length: Int(length)))))
        let out = acl.push(ACLKey(key, direction), boundary: boundary, fragment: fragment, record: r.number,
                           cutByCapture: r.isTruncated)
        for d in out.diagnostics { say(r, handle, with(d, undecoded: d.field("bytes") ?? d.field("extra") ?? d.field("have"))) }
        if let pdu = out.pdu { l2cap(pdu, key, direction, r) }
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

    private func l2cap(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: false,
                   body: .l2cap(L2CAPInfo(cid: pdu.cid, length: pdu.declaredLength, firstRecord: pdu.firstRecord,
                                          truncated: pdu.truncated))))
        switch pdu.cid {
        case L2CAPChannel.att:
            connections.setTransport(key, .le)
            att(pdu, key, direction, r)
        case L2CAPChannel.signaling, L2CAPChannel.leSignaling:
            signaling(pdu, key, direction, r)
        case 0x0040...:
            switch channels.psm(key, direction, pdu.cid) ?? forcedOrGuessedPSM(pdu, key, direction, r) {
            case PSM.rfcomm?: rfcomm(pdu.payload, key, direction, r)
            case PSM.att?: att(pdu, key, direction, r)
            case PSM.sdp?: sdp(pdu.payload, ACLKey(key, direction), r)
            case let psm?: undecoded(r, key.handle, PSM.name(psm), pdu.payload)
            case nil: undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
            }
        default:
            undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
        }
    }

    /// A dynamic channel with no captured setup: `--decode-as`, else a frame that parses as RFCOMM
    /// with a valid FCS. A guess is said once per channel.
    private func forcedOrGuessedPSM(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) -> UInt16? {
        for case .cid(let cid, let psm) in decodeAs where cid == pdu.cid { return psm }
        let channel = L2CAPChannelMap.Key(connection: key, direction: direction, cid: pdu.cid)
        if let psm = guessed[channel] { return psm }
        guard let frame = try? RFCOMMFrame.parse(pdu.payload), frame.type != nil, frame.fcs == frame.expectedFCS else { return nil }
        guessed[channel] = PSM.rfcomm
        say(r, key.handle, Diagnostic(L2CAPDiagnostics.guessed,
                                      "no captured signalling says what channel \(Hex.value(pdu.cid, width: 4)) carries; its frames parse as RFCOMM with a valid FCS, so it is decoded as RFCOMM (a guess; --decode-as overrides)",
                                      fields: [("cid", .hex(pdu.cid)), ("psm", .hex(PSM.rfcomm))]), direction)
        return PSM.rfcomm
    }

    private func sdp(_ payload: ArraySlice<UInt8>, _ key: ACLKey, _ r: CaptureRecord) {
        var decoder = sdpDecoders.removeValue(forKey: key) ?? SDPDecoder()
        let (info, diagnostics) = decoder.decode(payload)
        sdpDecoders[key] = decoder
        if let info {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: .sdp(info)))
            for s in info.services where s.isIAP2 {
                guard let ch = s.rfcommChannel else { continue }
                for dlci in [ch << 1, ch << 1 | 1] {
                    let ck = ChannelKey(connection: key.connection, dlci: dlci)
                    iap2ServerChannels.insert(ck)
                    notIAP2.remove(ck)
                }
            }
        }
        for d in diagnostics { say(r, key.connection.handle, d, key.direction) }
    }

    private func signaling(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let (commands, diagnostics) = channels.decode(pdu.payload, connection: key, direction: direction)
        for c in commands {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .l2capSignaling(c)))
        }
        for d in diagnostics { say(r, key.handle, d, direction) }
    }

    private func rfcomm(_ payload: ArraySlice<UInt8>, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let frame: RFCOMMFrame
        do {
            frame = try RFCOMMFrame.parse(payload)
        } catch {
            var d = Diagnostic(RFCOMMDiagnostics.malformed,
                               "RFCOMM frame of \(payload.count) bytes: needs \(error.needed) more at offset \(error.offset), \(error.available) left",
                               fields: [("offset", .int(error.offset))], packetOffset: error.offset)
            d.undecodedBytes = payload.count
            return say(r, key.handle, d, direction)
        }
        var info = RFCOMMInfo(dlci: frame.dlci, frame: frame.type?.name ?? "Unknown (\(Hex.value(frame.control, width: 2)))",
                              pollFinal: frame.pollFinal, credits: frame.credits, length: frame.information.count)
        if frame.dlci == 0, frame.type == .uih, let mux = try? RFCOMMMuxCommand.parse(frame.information) {
            info.mux = mux.name
            info.fields = [(mux.isCommand ? "command" : "response", .bytes(Array(mux.values)))]
        }
        // Data frames on a data channel are lower-layer detail: what they carry is shown above them.
        let carriesData = frame.type == .uih && frame.dlci != 0 && !frame.information.isEmpty
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: !carriesData,
                   body: .rfcomm(info)))
        if frame.fcs != frame.expectedFCS {
            say(r, key.handle, Diagnostic(RFCOMMDiagnostics.fcsBad,
                                          "DLCI \(frame.dlci) \(info.frame): FCS \(Hex.value(frame.fcs, width: 2)), expected \(Hex.value(frame.expectedFCS, width: 2))",
                                          fields: [("expected", .int(frame.expectedFCS)), ("actual", .int(frame.fcs))]), direction)
        }
        if frame.type == .uih, frame.dlci != 0, !frame.information.isEmpty {
            channelData(frame, key, direction, r)
        }
    }

    // MARK: iAP2

    private func channelData(_ frame: RFCOMMFrame, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let ck = ChannelKey(connection: key, dlci: frame.dlci)
        var bytes = frame.information
        if iap2Links[ck] == nil {
            let declared = iap2ServerChannels.contains(ck) || decodeAs.contains(.rfcommIAP2(channel: frame.channel))
            if !declared {
                guard !notIAP2.contains(ck) else { return undecoded(r, key.handle, "RFCOMM channel \(frame.channel)", bytes) }
                let seen = (undecided.removeValue(forKey: ck) ?? []) + bytes
                // Detect bytes or a header need 6 or 9 bytes before they can be judged.
                if seen.first == 0xff, seen.count < IAP2LinkPacket.headerLength, !seen.starts(with: IAP2Framer.detectBytes) {
                    undecided[ck] = seen
                    return
                }
                guard IAP2Framer.looksLikeIAP2(seen[...]) else {
                    notIAP2.insert(ck)
                    return undecoded(r, key.handle, "RFCOMM channel \(frame.channel)", seen[...])
                }
                bytes = seen[...]
            }
            iap2Links[ck] = IAP2Link()
        }
        guard var link = iap2Links.removeValue(forKey: ck) else { return }
        let outputs = link.push(bytes, direction: direction, time: r.timestamp)
        iap2Links[ck] = link
        for o in outputs { iap2(o, ck, direction, r.number, r.timestamp) }
    }

    private func iap2(_ o: IAP2Link.Output, _ ck: ChannelKey, _ direction: Direction, _ record: Int, _ time: Timestamp) {
        let handle = ck.connection.handle
        func event(_ body: EventBody, top: Bool = true) {
            emit(Event(record: record, timestamp: time, direction: direction, connection: handle, isTop: top, body: body))
        }
        switch o {
        // DATA and bare ACK packets are link detail; what DATA carries is shown as its own event.
        case .packet(let p): event(.iap2(p), top: p.kind != "DATA" && p.kind != "ACK")
        case .control(let c): event(.iap2Control(c))
        case .identification(let i): event(.iap2Identification(i))
        case .diagnostic(let d): event(.diagnostic(d))
        case .ea(let session, let protocolName, let bytes):
            let key = EAKey(connection: ck.connection, session: session, direction: direction)
            var s = eaStreams.removeValue(forKey: key) ?? A5Stream()
            let outs = s.push(bytes)
            eaStreams[key] = s
            ea(outs, key, protocolName, record, time)
        }
    }

    private func ea(_ outputs: [A5Stream.Output], _ key: EAKey, _ protocolName: String?, _ record: Int, _ time: Timestamp) {
        for o in outputs {
            let body: EventBody
            switch o {
            case .frame(let f):
                body = .a5(A5FrameInfo(frame: f, transport: "iap2", attHandle: nil, uuid: nil, eaSession: key.session,
                                       protocolName: protocolName))
            case .diagnostic(let d):
                var d = d
                d.fields.append(("ea_session", .int(key.session)))
                body = .diagnostic(with(d, undecoded: d.field("skipped_bytes") ?? d.field("have")))
            }
            emit(Event(record: record, timestamp: time, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: body))
        }
    }

    /// The link's channel ends: partial packets and EA frames are reported, state is freed.
    private func endIAP2(_ ck: ChannelKey, record: Int, time: Timestamp, reason: String) {
        guard let link = iap2Links.removeValue(forKey: ck) else { return }
        for (direction, skipped, partial) in link.leftovers() {
            var ds: [Diagnostic] = []
            if skipped > 0 {
                var d = Diagnostic(IAP2Diagnostics.resync, "skipped \(skipped) bytes that form no iAP2 packet before \(reason)",
                                   fields: [("skipped_bytes", .int(skipped))])
                d.undecodedBytes = skipped
                ds.append(d)
            }
            if let (have, need) = partial {
                var d = Diagnostic(IAP2Diagnostics.truncated, "stream ended by \(reason) inside an iAP2 packet: \(have) of \(need) bytes",
                                   fields: [("have", .int(have)), ("need", .int(need))])
                d.undecodedBytes = have
                ds.append(d)
            }
            for d in ds {
                emit(Event(record: record, timestamp: time, direction: direction, connection: ck.connection.handle,
                           isTop: true, body: .diagnostic(d)))
            }
        }
        for key in eaStreams.keys.filter({ $0.connection == ck.connection }).sorted() {
            guard var s = eaStreams.removeValue(forKey: key) else { continue }
            ea(s.finish(reason: reason), key, nil, record, time)
        }
    }

    private func undecoded(_ r: CaptureRecord, _ handle: UInt16?, _ what: String, _ bytes: ArraySlice<UInt8>) {
        emit(Event(record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle, isTop: true,
                   body: .undecoded(UndecodedInfo(what: what, length: bytes.count, bytes: Array(bytes.prefix(64))))))
    }

    // MARK: ATT and A5

    private func att(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let peer = connections[key]?.address.map(PeerID.address) ?? .connection(key)
        var store = GATTStore()
        swap(&store, &gatt)
        var decoder = ATTDecoder(bearer: bearers.removeValue(forKey: key) ?? ATTBearer(), gatt: store, peer: peer)
        let result = decoder.decode(pdu.payload, direction: direction, record: r.number, truncated: pdu.truncated)
        bearers[key] = decoder.bearer
        swap(&decoder.gatt, &gatt)

        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: true,
                   body: .att(result.info)))
        for d in result.diagnostics { say(r, key.handle, d, direction) }
        for v in result.gattValues {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .gattValue(v)))
        }
        for handle in result.streamHoles {
            let sk = StreamKey(connection: key, handle: handle, direction: direction)
            guard var s = streams[sk] else { continue }
            let outs = s.hole()
            streams[sk] = s
            a5(outs, key: sk, record: r.number, time: r.timestamp, uuid: result.info.uuid)
        }
        for (handle, value) in result.streamValues {
            let sk = StreamKey(connection: key, handle: handle, direction: direction)
            var s: A5Stream
            if let existing = streams.removeValue(forKey: sk) {
                s = existing
            } else {
                guard streamCount[key, default: 0] < Self.streamLimitPerConnection else { continue }
                streamCount[key, default: 0] += 1
                s = A5Stream()
            }
            let outs = s.push(value)
            streams[sk] = s
            if !outs.isEmpty {
                let db = gatt[GATTStore.Key(peer: peer, serverIsPeer: result.info.opcode.isFromServer ? direction == .received : direction == .sent)]
                a5(outs, key: sk, record: r.number, time: r.timestamp, uuid: db?.uuid(of: handle))
            }
        }
    }

    private func a5(_ outputs: [A5Stream.Output], key: StreamKey, record: Int, time: Timestamp, uuid: BluetoothUUID?) {
        for o in outputs {
            let body: EventBody
            switch o {
            case .frame(let f):
                body = .a5(A5FrameInfo(frame: f, transport: "att", attHandle: key.handle, uuid: uuid))
            case .diagnostic(let d):
                var d = d
                d.fields.append(("att_handle", .hex(key.handle)))
                body = .diagnostic(with(d, undecoded: d.field("skipped_bytes") ?? d.field("have")))
            }
            emit(Event(record: record, timestamp: time, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: body))
        }
    }

    // MARK: helpers

    private func say(_ r: CaptureRecord, _ handle: UInt16?, _ d: Diagnostic, _ direction: Direction? = nil) {
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction ?? r.direction, connection: handle,
                   isTop: true, body: .diagnostic(d)))
    }

    private func with(_ d: Diagnostic, undecoded: FieldValue?) -> Diagnostic {
        var d = d
        if d.undecodedBytes == 0, case .int(let n)? = undecoded { d.undecodedBytes = Int(n) }
        return d
    }
}
