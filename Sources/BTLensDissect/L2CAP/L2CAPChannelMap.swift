import BTLensCore

/// Which PSM each dynamic channel carries, learned from connection requests and responses, and
/// the flow control of credit-based channels. Kept per connection and freed with it; channels per
/// connection are bounded by the CID space, and a credit-based channel holds at most one SDU.
struct L2CAPChannelMap {
    struct Key: Hashable, Comparable {
        var connection: ConnectionKey
        /// The direction of the data that carries this CID in its header (the CID is the receiver's).
        var direction: Direction
        var cid: UInt16
        static func < (a: Key, b: Key) -> Bool {
            (a.connection, a.cid, a.direction.rawValue) < (b.connection, b.cid, b.direction.rawValue)
        }
    }

    /// A request waiting for its response: the PSM, the requester's CIDs (several for an Enhanced
    /// Credit Based request) and, for a credit-based one, the requester's MTU, MPS and credits.
    private struct Request {
        var psm: UInt16
        var cids: [UInt16]
        var flow: (mtu: Int, mps: Int, credits: Int)?
    }
    private struct PendingKey: Hashable {
        var connection: ConnectionKey
        var identifier: UInt8
        var requester: Direction
    }

    private var channels: [Key: UInt16] = [:]
    private(set) var credit: [Key: CreditBasedChannel] = [:]
    private var pending: [PendingKey: Request] = [:]
    /// The first channel to each PSM on a connection, both ways, with that PSM: AVDTP's carries
    /// signalling, the later ones media (AVDTP 1.3 §5.4).
    private var firstChannels: Set<First> = []
    private struct First: Hashable {
        var key: Key
        var psm: UInt16
    }

    /// What one signalling PDU changed: the channels it opened (both ways) and closed, with their PSM
    /// and what a credit-based channel's SDU left unfinished.
    struct Changes {
        var opened: [(toResponder: Key, toRequester: Key, psm: UInt16)] = []
        var closed: [(Key, psm: UInt16, left: [CreditBasedChannel.Output])] = []
    }
    private var changes = Changes()

    func psm(_ connection: ConnectionKey, _ direction: Direction, _ cid: UInt16) -> UInt16? {
        channels[Key(connection: connection, direction: direction, cid: cid)]
    }

    /// The channel was its connection's first to `psm`.
    func isFirst(_ key: Key, psm: UInt16) -> Bool { firstChannels.contains(First(key: key, psm: psm)) }

    /// Decodes one signalling PDU (several commands may share it) and updates the map.
    mutating func decode(
        _ payload: ArraySlice<UInt8>, connection: ConnectionKey, direction: Direction, at place: RecordPlace
    ) -> (commands: [L2CAPSignalingInfo], diagnostics: [Diagnostic], changes: Changes) {
        changes = Changes()
        defer { changes = Changes() }
        var r = ByteReader(payload)
        var commands: [L2CAPSignalingInfo] = []
        var diagnostics: [Diagnostic] = []
        while !r.isAtEnd {
            guard let code = try? r.u8(), let id = try? r.u8(), let length = try? r.u16le(),
                let data = try? r.bytes(Int(length))
            else {
                let d = Diagnostic(
                    L2CAPDiagnostics.signalingMalformed,
                    "signalling command at offset \(r.offset) runs past the end of its PDU (\(r.remaining) bytes left)",
                    fields: [("offset", .int(r.offset))])
                return (commands, diagnostics + [d], changes)
            }
            var info = L2CAPSignalingInfo(code: L2CAPSignalingCode(rawValue: code), identifier: id, fields: [])
            if let definition = L2CAPSignalingCode.table[Int(code)] {
                if data.count >= definition.minimumSize {
                    var p = ByteReader(data)
                    let command = Command(identifier: id, connection: connection, direction: direction, place: place)
                    info.fields = parameters(definition.parameters, command, &p, &diagnostics, &info.creditCIDs)
                } else {
                    diagnostics.append(
                        Diagnostic(
                            L2CAPDiagnostics.signalingMalformed,
                            "\(definition.name) at offset \(r.offset - data.count - 4): its parameters need \(definition.minimumSize) bytes, \(data.count) present",
                            fields: [("offset", .int(r.offset - data.count - 4))]))
                }
            }
            commands.append(info)
        }
        return (commands, diagnostics, changes)
    }

    private struct Command {
        var identifier: UInt8
        var connection: ConnectionKey
        var direction: Direction
        var place: RecordPlace
        var pending: PendingKey { PendingKey(connection: connection, identifier: identifier, requester: direction) }
        /// The key of data sent to this command's sender on its own CID `cid`.
        func toSender(_ cid: UInt16) -> Key { Key(connection: connection, direction: direction.opposite, cid: cid) }
    }

    /// The fields of one command whose data is at least its minimum size, and what it changes in the
    /// map; a credit-based command's CIDs also as numbers, in `cids`.
    private mutating func parameters(
        _ parameters: L2CAPSignalingCode.Parameters, _ c: Command, _ p: inout ByteReader,
        _ diagnostics: inout [Diagnostic], _ cids: inout [UInt16]
    ) -> [(String, FieldValue)] {
        switch parameters {
        case .connectionRequest:
            return connectionRequest(c, &p)
        case .leCreditBasedConnectionRequest, .creditBasedConnectionRequest:
            return creditBasedConnectionRequest(c, &p, le: parameters == .leCreditBasedConnectionRequest, &cids)
        case .connectionResponse:
            return connectionResponse(c, &p)
        case .leCreditBasedConnectionResponse, .creditBasedConnectionResponse:
            return creditBasedConnectionResponse(c, &p, le: parameters == .leCreditBasedConnectionResponse, &cids)
        case .creditBasedReconfigureResponse:
            return [("result", .int(p.u16leOrZero()))]
        case .flowControlCredit:
            return flowControlCredit(c, &p, &diagnostics)
        case .creditBasedReconfigureRequest:
            return creditBasedReconfigureRequest(c, &p, &cids)
        case .disconnectionRequest, .disconnectionResponse:
            return disconnection(c, &p, response: parameters == .disconnectionResponse)
        case .configurationRequest, .configurationResponse:
            return L2CAPSignalingCode.configuration(&p, response: parameters == .configurationResponse)
        case .informationRequest, .informationResponse:
            return L2CAPSignalingCode.information(&p, response: parameters == .informationResponse)
        case .commandReject:
            return L2CAPSignalingCode.reject(&p)
        case .connectionParameterUpdate:
            return Self.connectionParameterUpdate(&p)
        case .connectionParameterUpdateResponse:
            return Self.connectionParameterUpdateResponse(&p)
        case .none:
            return []
        }
    }

    private mutating func connectionRequest(_ c: Command, _ p: inout ByteReader) -> [(String, FieldValue)] {
        let (psm, scid) = (p.u16leOrZero(), p.u16leOrZero())
        pending[c.pending] = Request(psm: psm, cids: [scid])
        return [("psm", .hex(psm)), ("psm_name", .string(PSM.name(psm))), ("source_cid", .hex(scid))]
    }

    /// LE Credit Based (one source CID, before the flow control) or Enhanced Credit Based (a list
    /// of them, after it).
    private mutating func creditBasedConnectionRequest(
        _ c: Command, _ p: inout ByteReader, le: Bool, _ cids: inout [UInt16]
    ) -> [(String, FieldValue)] {
        let psm = p.u16leOrZero()
        let scid = le ? p.u16leOrZero() : 0
        let (mtu, mps, credits) = (p.u16leOrZero(), p.u16leOrZero(), p.u16leOrZero())
        let scids = le ? [scid] : p.remainingCIDs()
        cids = scids
        pending[c.pending] = Request(psm: psm, cids: scids, flow: (Int(mtu), Int(mps), Int(credits)))
        return [("psm", .hex(psm)), ("psm_name", .string(PSM.name(psm))), ("source_cid", cidList(scids, le))]
            + Self.flowFields(mtu, mps, credits)
    }

    private mutating func connectionResponse(_ c: Command, _ p: inout ByteReader) -> [(String, FieldValue)] {
        let (dcid, scid) = (p.u16leOrZero(), p.u16leOrZero())
        let result = (try? p.u16le()) ?? 0xffff
        // Result 1 is "pending": the final response follows with the same identifier.
        if result != 1 { connected(c, responderCIDs: [result == 0 ? dcid : 0], flow: nil) }
        var fields: [(String, FieldValue)] = [
            ("destination_cid", .hex(dcid)), ("source_cid", .hex(scid)), ("result", .int(result)),
        ]
        if let status = try? p.u16le() { fields.append(("status", .int(status))) }
        return fields
    }

    private mutating func creditBasedConnectionResponse(
        _ c: Command, _ p: inout ByteReader, le: Bool, _ cids: inout [UInt16]
    ) -> [(String, FieldValue)] {
        let dcid = le ? p.u16leOrZero() : 0
        let (mtu, mps, credits) = (p.u16leOrZero(), p.u16leOrZero(), p.u16leOrZero())
        let result = (try? p.u16le()) ?? 0xffff
        // An Enhanced response lists a CID per requested channel, 0 for each refused.
        let dcids = le ? [result == 0 ? dcid : 0] : p.remainingCIDs()
        cids = dcids
        connected(c, responderCIDs: dcids, flow: (Int(mtu), Int(mps), Int(credits)))
        return [("destination_cid", cidList(dcids, le))] + Self.flowFields(mtu, mps, credits) + [
            ("result", .int(result))
        ]
    }

    private static func flowFields(_ mtu: UInt16, _ mps: UInt16, _ credits: UInt16) -> [(String, FieldValue)] {
        [("mtu", .int(mtu)), ("mps", .int(mps)), ("credits", .int(credits))]
    }

    private mutating func flowControlCredit(
        _ c: Command, _ p: inout ByteReader, _ diagnostics: inout [Diagnostic]
    ) -> [(String, FieldValue)] {
        let (cid, credits) = (p.u16leOrZero(), p.u16leOrZero())
        let key = c.toSender(cid)
        if var channel = credit[key] {
            diagnostics += channel.grant(Int(credits), at: c.place, cid: cid)
            credit[key] = channel
        }
        return [("cid", .hex(cid)), ("credits", .int(credits))]
    }

    private mutating func creditBasedReconfigureRequest(
        _ c: Command, _ p: inout ByteReader, _ cids: inout [UInt16]
    ) -> [(String, FieldValue)] {
        let (mtu, mps) = (p.u16leOrZero(), p.u16leOrZero())
        let dcids = p.remainingCIDs()
        cids = dcids
        for cid in dcids {
            credit[c.toSender(cid)]?.mtu = Int(mtu)
            credit[c.toSender(cid)]?.mps = Int(mps)
        }
        return [
            ("mtu", .int(mtu)), ("mps", .int(mps)),
            ("destination_cid", .string(dcids.map { Hex.value($0, width: 4) }.joined(separator: " "))),
        ]
    }

    /// A Disconnection Response closes the channel both ways.
    private mutating func disconnection(
        _ c: Command, _ p: inout ByteReader, response: Bool
    ) -> [(String, FieldValue)] {
        let (dcid, scid) = (p.u16leOrZero(), p.u16leOrZero())
        // The response's destination CID is its sender's (Core Vol 3 Part A §4.7).
        if response {
            for key in [c.toSender(dcid), Key(connection: c.connection, direction: c.direction, cid: scid)] {
                guard let psm = channels.removeValue(forKey: key) else { continue }
                var left: [CreditBasedChannel.Output] = []
                if var channel = credit.removeValue(forKey: key) { left = channel.close(cid: key.cid) }
                firstChannels = firstChannels.filter { $0.key != key }
                changes.closed.append((key, psm, left))
            }
        }
        return [("destination_cid", .hex(dcid)), ("source_cid", .hex(scid))]
    }

    /// §4.20: the LE connection's parameters, in the units of HCI's LE Connection Update.
    private static func connectionParameterUpdate(_ p: inout ByteReader) -> [(String, FieldValue)] {
        let (min, max, latency, timeout) = (p.u16leOrZero(), p.u16leOrZero(), p.u16leOrZero(), p.u16leOrZero())
        return HCIUnit.connectionInterval.fields("interval_min", Int(min))
            + HCIUnit.connectionInterval.fields("interval_max", Int(max)) + [("latency", .int(latency))]
            + HCIUnit.tenMilliseconds.fields("timeout", Int(timeout))
    }

    private static func connectionParameterUpdateResponse(_ p: inout ByteReader) -> [(String, FieldValue)] {
        let result = p.u16leOrZero()
        let name = result == 0 ? "Accepted" : result == 1 ? "Rejected" : "Unknown"
        return [("result", .int(result)), ("result_name", .string(name))]
    }

    /// One CID as a number (LE Credit Based); an Enhanced command's list of them as a string.
    private func cidList(_ cids: [UInt16], _ single: Bool) -> FieldValue {
        if single, let cid = cids.first { return .hex(cid) }
        return .string(cids.map { Hex.value($0, width: 4) }.joined(separator: " "))
    }

    /// A response: each channel it accepts (a non-zero CID) carries the request's PSM both ways,
    /// with the flow control each side announced for what it receives.
    private mutating func connected(
        _ response: Command, responderCIDs: [UInt16], flow: (mtu: Int, mps: Int, credits: Int)?
    ) {
        let requester = response.direction.opposite
        let key = PendingKey(connection: response.connection, identifier: response.identifier, requester: requester)
        guard let request = pending.removeValue(forKey: key) else { return }
        for (requesterCID, responderCID) in zip(request.cids, responderCIDs) where responderCID != 0 {
            let toResponder = Key(connection: response.connection, direction: requester, cid: responderCID)
            let toRequester = Key(connection: response.connection, direction: requester.opposite, cid: requesterCID)
            if !firstChannels.contains(where: { $0.key.connection == response.connection && $0.psm == request.psm }) {
                firstChannels.formUnion([
                    First(key: toResponder, psm: request.psm), First(key: toRequester, psm: request.psm),
                ])
            }
            channels[toResponder] = request.psm
            channels[toRequester] = request.psm
            changes.opened.append((toResponder, toRequester, request.psm))
            if let flow, let asked = request.flow {
                credit[toResponder] = CreditBasedChannel(mtu: flow.mtu, mps: flow.mps, credits: flow.credits)
                credit[toRequester] = CreditBasedChannel(mtu: asked.mtu, mps: asked.mps, credits: asked.credits)
            }
        }
    }

    /// A K-frame on a credit-based channel.
    mutating func kframe(_ payload: ArraySlice<UInt8>, _ key: Key, at place: RecordPlace) -> [CreditBasedChannel
        .Output]?
    {
        guard var channel = credit.removeValue(forKey: key) else { return nil }
        let out = channel.kframe(payload, at: place, cid: key.cid)
        credit[key] = channel
        return out
    }

    /// The connection's channels end: what their SDUs left incomplete, by channel.
    mutating func close(_ connection: ConnectionKey?) -> [(Key, psm: UInt16, [CreditBasedChannel.Output])] {
        var left: [(Key, psm: UInt16, [CreditBasedChannel.Output])] = []
        for key in credit.keys.sorted() where connection == nil || key.connection == connection {
            guard var channel = credit.removeValue(forKey: key) else { continue }
            let out = channel.close(cid: key.cid)
            if !out.isEmpty { left.append((key, channels[key] ?? 0, out)) }
        }
        if let connection {
            channels = channels.filter { $0.key.connection != connection }
            firstChannels = firstChannels.filter { $0.key.connection != connection }
            pending = pending.filter { $0.key.connection != connection }
        }
        return left
    }
}

extension ByteReader {
    /// A parameter past the end of the command's data reads as 0.
    fileprivate mutating func u16leOrZero() -> UInt16 { (try? u16le()) ?? 0 }

    /// The CIDs filling the rest of an Enhanced Credit Based command, 2 bytes each.
    fileprivate mutating func remainingCIDs() -> [UInt16] { (0..<(remaining / 2)).map { _ in u16leOrZero() } }
}
