import BTLensCore

/// Dissectors on framed streams: naming and decoding messages, and pairing responses with requests.
extension Analyzer {
    /// A pairing context: one dissector on one connection (both characteristics), EA session or RFCOMM channel.
    struct PairKey: Hashable, Comparable {
        enum Scope: Hashable, Comparable {
            case connection
            case eaSession(UInt16)
            case rfcomm(dlci: UInt8)
        }
        var connection: ConnectionKey
        var dissector: String
        var scope = Scope.connection
        static func < (a: PairKey, b: PairKey) -> Bool {
            if (a.connection, a.dissector) != (b.connection, b.dissector) { return (a.connection, a.dissector) < (b.connection, b.dissector) }
            return a.scope < b.scope
        }
    }

    /// The stream for a characteristic: bound by `--decode-as`, by its UUID, else (detected A5
    /// streams) by the device's vendor, else plain A5 detection.
    func boundStream(handle: UInt16, uuid: BluetoothUUID?, connection: ConnectionKey, direction: Direction) -> BoundStream {
        var s = unnamedStream(handle: handle, uuid: uuid, connection: connection, direction: direction)
        s.uuid = uuid
        return s
    }

    private func unnamedStream(handle: UInt16, uuid: BluetoothUUID?, connection: ConnectionKey, direction: Direction) -> BoundStream {
        for case .attHandle(let h, let name) in decodeAs where h == handle {
            if let d = dissectors.dissector(named: name) {
                return BoundStream(d, framing: d.framing, detect: false, direction: direction, messageLimit: limits.messageBytes)
            }
        }
        let device = device(connection)
        if let uuid, let bound = dissectors.lookup(.characteristic(uuid), on: device) {
            return BoundStream(bound.dissector, framing: bound.framing, detect: false, direction: direction, messageLimit: limits.messageBytes)
        }
        if let d = dissectors.forDevice(device), case .frames = d.framing {
            return BoundStream(d, framing: d.framing, detect: true, direction: direction, messageLimit: limits.messageBytes)
        }
        return BoundStream(nil, framing: nil, detect: true, direction: direction, messageLimit: limits.messageBytes,
                           keepsPayloads: valueBytes)
    }

    /// The device at the other end of a connection, as far as the capture says: its address and
    /// advertised name pick the definitions bound to some devices only.
    func device(_ connection: ConnectionKey) -> DissectorTable.Device {
        let address = connections[connection]?.address
        return DissectorTable.Device(address: address, name: address.flatMap { advertisers.devices[$0]?.name })
    }

    /// Names and decodes one frame, pairs it, and says what pairing found.
    /// Returns diagnostics to emit before the frame (requests that timed out) and after it.
    func dissect(_ f: A5Frame, _ naming: inout A5FrameInfo.Naming, uuid: BluetoothUUID?, dissector: any MessageDissector,
                 pairKey: PairKey, direction: Direction, record: Int, time: Timestamp) -> (before: [Diagnostic], after: [Diagnostic]) {
        let decoded = dissector.decode(Message(command: naming.hasCommand ? f.command : nil,
                                               flags: f.flags, payload: f.payload, direction: direction,
                                               characteristic: uuid))
        naming.dissector = dissector.name
        naming.decoded = decoded
        var before: [Diagnostic] = []
        var after = decoded.problems
        guard let rule = dissector.pairing else { return (before, after) }
        var tracker = pairings.removeValue(forKey: pairKey) ?? PairingTracker(rule: rule, limit: limits.pendingRequests)
        defer { pairings[pairKey] = tracker }
        before = tracker.expire(now: time).map { unanswered($0, dissector.name, rule, why: "within \(rule.timeoutMicroseconds / 1000) ms") }
        let kind = decoded.kind ?? (direction == .sent ? .request
                                    : rule.responseCommand.couldRespond(f.command) ? .response : .event)
        switch kind {
        case .request:
            let r = PairingTracker.Request(record: record, time: time, command: f.command, name: decoded.name, sequence: f.sequence)
            if let dropped = tracker.request(r) {
                after.append(unanswered(dropped, dissector.name, rule, why: "before \(limits.pendingRequests) newer requests"))
            }
        case .response:
            if let (_, paired) = tracker.response(command: f.command, sequence: f.sequence, time: time) {
                naming.pairing = paired
            } else {
                var fields: [(String, FieldValue)] = [("command", .int(f.command))]
                if let s = f.sequence { fields.append(("sequence", .int(s))) }
                fields.append(("dissector", .string(dissector.name)))
                after.append(Diagnostic(DissectorDiagnostics.unsolicited,
                                        "\(label(f.command, decoded.name))\(f.sequence.map { " sequence \($0)" } ?? ""): no outstanding request it answers",
                                        fields: fields))
            }
        case .event:
            break
        }
        return (before, after)
    }

    /// Requests still outstanding when their context ends.
    func endPairings(_ connection: ConnectionKey, record: Int, time: Timestamp, reason: String) {
        for key in pairings.keys.filter({ $0.connection == connection }).sorted() {
            guard var tracker = pairings.removeValue(forKey: key) else { continue }
            for r in tracker.drain() {
                emit(Event(record: record, timestamp: time, direction: .sent, connection: connection.handle, isTop: true,
                           body: .diagnostic(unanswered(r, key.dissector, tracker.rule, why: "before \(reason)"))))
            }
        }
    }

    private func unanswered(_ r: PairingTracker.Request, _ dissector: String, _ rule: PairingRule, why: String) -> Diagnostic {
        var fields: [(String, FieldValue)] = [("command", .int(r.command))]
        if let s = r.sequence { fields.append(("sequence", .int(s))) }
        fields += [("request_record", .int(r.record)), ("timeout_ms", .int(Int(rule.timeoutMicroseconds / 1000))),
                   ("dissector", .string(dissector))]
        return Diagnostic(DissectorDiagnostics.unanswered,
                          "\(label(r.command, r.name))\(r.sequence.map { " sequence \($0)" } ?? "") sent at #\(r.record): no response \(why)",
                          fields: fields)
    }

    private func label(_ command: UInt16, _ name: String?) -> String {
        name.map { "\($0) (\(Hex.value(command, width: 2)))" } ?? "command \(Hex.value(command, width: 2))"
    }
}
