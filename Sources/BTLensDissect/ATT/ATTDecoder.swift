import BTLensCore

/// What one ATT PDU yields.
struct ATTResult {
    var info = ATTInfo(opcode: ATTOpcode(rawValue: 0))
    var diagnostics: [Diagnostic] = []
    /// Values written to or sent from an attribute, in order: the input of per-characteristic streams.
    var streamValues = InlineList<(handle: UInt16, value: StreamValue)>()
    /// Handles whose stream lost bytes because the capture cut this PDU.
    var streamHoles: [UInt16] = []
    var gattValues: [GATTValue] = []
    var undecodedBytes = 0
}

/// A value for a characteristic's stream. One that lies in its PDU is kept as its indices there: a
/// slice would count a reference to the capture's buffer, on every PDU.
enum StreamValue {
    case inPDU(Range<Int>)
    /// Put together from several PDUs (a long write).
    case joined([UInt8])

    init(_ slice: ArraySlice<UInt8>) { self = .inPDU(slice.indices) }

    /// Lends the value's bytes to `body`; `pdu` is the PDU it was decoded from.
    func withBytes<R>(in pdu: ArraySlice<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        pdu.withUnsafeBufferPointer { withBytes(in: $0, startIndex: pdu.startIndex, body) }
    }

    /// The same with the PDU's bytes at hand, `startIndex` being the index of the first.
    func withBytes<R>(in pdu: UnsafeBufferPointer<UInt8>, startIndex: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .joined(let bytes):
            return bytes.withUnsafeBufferPointer(body)
        case .inPDU(let range):
            // The indices came from a slice of this PDU; they are clamped to it all the same.
            let lower = min(max(range.lowerBound - startIndex, 0), pdu.count)
            let upper = min(max(range.upperBound - startIndex, lower), pdu.count)
            return body(UnsafeBufferPointer(rebasing: pdu[lower..<upper]))
        }
    }
}

extension ATTResult {
    /// The info, moved out for its event: the result keeps an empty one with the same opcode.
    mutating func takeInfo() -> ATTInfo {
        var taken = ATTInfo(opcode: info.opcode)
        swap(&taken, &info)
        return taken
    }
}

/// Decodes ATT PDUs (Core Specification, Vol 3, Part F, §3.4) and learns the GATT database from discovery.
struct ATTDecoder {
    var bearer = ATTBearer()
    var facts = ATTFacts()
    let gatt: GATTStore
    /// The peer of the connection: databases are kept per peer so reconnections keep their handles.
    let peer: PeerID
    /// False where no consumer reads the values of writes and notifications (`stats`): their infos
    /// have none (their streams get them all the same).
    var keepsValues = true

    /// The last handles looked up, per server side, while no discovery changed the store: a stream's
    /// PDUs go to one or two handles, so each PDU need not hash its way into the databases.
    var recent: [(serverIsPeer: Bool, handle: UInt16, uuid: BluetoothUUID?)] = []
    var recentGeneration = -1

    mutating func uuid(_ db: GATTStore.Key, _ handle: UInt16) -> BluetoothUUID? {
        if recentGeneration != gatt.generation {
            recent.removeAll(keepingCapacity: true)
            recentGeneration = gatt.generation
        }
        if let hit = recent.first(where: { $0.handle == handle && $0.serverIsPeer == db.serverIsPeer }) { return hit.uuid }
        let uuid = gatt.uuid(db, handle)
        if recent.count >= 8 { recent.removeFirst() }
        recent.append((db.serverIsPeer, handle, uuid))
        return uuid
    }

    /// The database of the server a PDU concerns, given whether the server is the peer.
    func key(_ serverIsPeer: Bool) -> GATTStore.Key { GATTStore.Key(peer: peer, serverIsPeer: serverIsPeer) }

    /// Decodes one PDU into `out`, an empty result the caller owns (filled in place, not returned:
    /// a result is large).
    /// `r` reads the PDU from its first byte; the caller keeps it, and with it the PDU's bytes.
    mutating func decode(_ r: inout ByteReader, direction: Direction, record: Int, time: Timestamp = Timestamp(microseconds: 0),
                         truncated: Bool, into out: inout ATTResult) {
        guard let raw = try? r.u8() else {
            out.diagnostics.append(Diagnostic(ATTDiagnostics.empty, "ATT PDU of 0 bytes: expected at least an opcode"))
            return
        }
        let opcode = ATTOpcode(rawValue: raw)
        // Set in place: `out` is empty, and a new info would destroy the one it holds.
        out.info.opcode = opcode
        out.info.truncated = truncated
        // Responses, notifications and indications come from the server; the rest go to it.
        let serverIsPeer = opcode.isFromServer ? direction == .received : direction == .sent
        let db = key(serverIsPeer)
        let client = opcode.isFromServer ? direction.opposite : direction
        do {
            try decodeParameters(opcode, &r, &out, db: db, direction: direction, client: client, record: record,
                                 truncated: truncated)
        } catch {
            if truncated {
                out.streamHoles += out.info.handle.map { [$0] } ?? []
            } else {
                out.diagnostics.append(Diagnostic(
                    ATTDiagnostics.malformed,
                    "\(opcode.name): needs \(error.needed) bytes at ATT offset \(error.offset), only \(error.available) left",
                    fields: [("offset", .int(error.offset)), ("needed", .int(error.needed)), ("available", .int(error.available))],
                    packetOffset: error.offset))
                out.undecodedBytes += error.available
            }
        }
        if let handle = out.info.handle, out.info.uuid == nil { out.info.uuid = uuid(db, handle) }
        lifecycle(r.bytes, &out, direction: direction, step: Lifecycle.Step(record: record, time: time), db: db)
    }

    private mutating func decodeParameters(_ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult,
                                           db: GATTStore.Key, direction: Direction, client: Direction, record: Int,
                                           truncated: Bool) throws(ShortRead) {
        let c = Int(client.rawValue)
        // A new request from a client ends any long read it had in progress.
        if !opcode.isFromServer, opcode != .readBlobRequest, opcode != .writeCommand, opcode != .signedWriteCommand,
           opcode != .handleValueConfirmation {
            finishLongRead(c, db: db, &out)
        }
        switch opcode {
        case .errorResponse:
            let request = ATTOpcode(rawValue: try r.u8())
            let handle = try r.u16le()
            let error = ATTErrorCode(rawValue: try r.u8())
            out.info.handle = handle
            out.info.fields = [("request", .string(request.name)), ("error", .string(error.name)),
                               ("error_code", .hex(error.rawValue))]
            if request == .readBlobRequest { finishLongRead(c, db: db, &out) }
            bearer.pending[c] = nil
        case .exchangeMTURequest:
            let mtu = Int(try r.u16le())
            bearer.clientMTU[c] = mtu
            out.info.fields = [("client_rx_mtu", .int(mtu))]
        case .exchangeMTUResponse:
            let server = Int(try r.u16le())
            let clientMTU = bearer.clientMTU[c] ?? server
            bearer.mtu = max(ATTBearer.defaultLEMTU, min(server, clientMTU))
            out.info.fields = [("server_rx_mtu", .int(server)), ("mtu", .int(bearer.mtu))]
        case .findInformationRequest, .readByTypeRequest, .readByGroupTypeRequest, .findByTypeValueRequest:
            let start = try r.u16le()
            let end = try r.u16le()
            var request = ATTBearer.Request(opcode: opcode)
            out.info.fields = [("start", .hex(start)), ("end", .hex(end))]
            if opcode == .findByTypeValueRequest {
                let type = BluetoothUUID.bit16(try r.u16le())
                let value = r.rest()
                request.type = BluetoothUUID.read(value)
                out.info.fields += [("attribute_type", .string(uuidLabel(type))), ("attribute_value", .bytes(Array(value)))]
            } else if opcode != .findInformationRequest {
                let type = try BluetoothUUID.read(&r, size: r.remaining)
                request.type = type
                if let t = type { out.info.fields.append(("attribute_type", .string(uuidLabel(t)))) }
            }
            bearer.pending[c] = request
        case .findInformationResponse:
            try findInformation(&r, &out, db: db)
        case .findByTypeValueResponse:
            var ranges: [String] = []
            let type = bearer.pending[c]?.type
            while !r.isAtEnd {
                let start = try r.u16le()
                let end = try r.u16le()
                ranges.append("\(Hex.value(start, width: 4))-\(Hex.value(end, width: 4))")
                if let t = type { gatt.update(db) { $0.addService(.init(start: start, end: end, uuid: t)) } }
            }
            out.info.fields = [("ranges", .string(ranges.joined(separator: " ")))]
            bearer.pending[c] = nil
        case .readByTypeResponse:
            try readByType(&r, &out, db: db, request: bearer.pending[c])
            bearer.pending[c] = nil
        case .readByGroupTypeResponse:
            try readByGroupType(&r, &out, db: db)
            bearer.pending[c] = nil
        case .readRequest:
            let handle = try r.u16le()
            out.info.handle = handle
            bearer.pending[c] = ATTBearer.Request(opcode: opcode, handle: handle)
        case .readBlobRequest:
            let handle = try r.u16le()
            let offset = Int(try r.u16le())
            out.info.handle = handle
            out.info.fields = [("offset", .int(offset))]
            if let lr = bearer.longRead[c], lr.handle != handle || lr.value.count != offset { finishLongRead(c, db: db, &out) }
            bearer.pending[c] = ATTBearer.Request(opcode: opcode, handle: handle, offset: offset)
        case .readResponse, .readBlobResponse:
            readValue(opcode, r.rest(), &out, db: db, client: c, record: record, truncated: truncated)
        case .readMultipleRequest, .readMultipleVariableRequest:
            var handles: [String] = []
            while !r.isAtEnd { handles.append(Hex.value(try r.u16le(), width: 4)) }
            out.info.fields = [("handles", .string(handles.joined(separator: " ")))]
            bearer.pending[c] = ATTBearer.Request(opcode: opcode)
        case .readMultipleResponse, .readMultipleVariableResponse:
            out.info.value = r.rest()
            bearer.pending[c] = nil
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            let handle = try r.u16le()
            out.info.handle = handle
            if opcode == .writeRequest { bearer.pending[c] = ATTBearer.Request(opcode: opcode, handle: handle) }
            if truncated { out.streamHoles.append(handle) } else { out.streamValues.append((handle, .inPDU(r.remainingIndices))) }
            if keepsValues { out.info.value = r.rest() }
        case .signedWriteCommand:
            let handle = try r.u16le()
            out.info.handle = handle
            guard r.remaining >= 12 || truncated else { throw ShortRead(offset: r.offset, needed: 12, available: r.remaining) }
            let value = try r.bytes(max(r.remaining - 12, 0))
            out.info.value = value
            out.info.fields = [("signature", .bytes(Array(r.rest())))]
            if truncated { out.streamHoles.append(handle) } else { out.streamValues.append((handle, StreamValue(value))) }
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            if opcode != .handleValueConfirmation {
                out.info.handle = bearer.pending[c]?.handle
                bearer.pending[c] = nil
            }
        case .prepareWriteRequest:
            let handle = try r.u16le()
            let offset = Int(try r.u16le())
            let value = r.rest()
            out.info.handle = handle
            out.info.value = value
            out.info.fields = [("offset", .int(offset))]
            prepare(c, handle: handle, offset: offset, value: value, record: record, truncated: truncated, &out)
        case .prepareWriteResponse:
            out.info.handle = try r.u16le()
            out.info.fields = [("offset", .int(try r.u16le()))]
            out.info.value = r.rest()
        case .executeWriteRequest:
            let flags = try r.u8()
            out.info.fields = [("flags", .string(flags == 1 ? "write" : flags == 0 ? "cancel" : "reserved (\(flags))"))]
            execute(c, write: flags == 1, db: db, record: record, &out)
            bearer.pending[c] = ATTBearer.Request(opcode: opcode)
        case .multipleHandleValueNotification:
            while !r.isAtEnd {
                let handle = try r.u16le()
                let length = Int(try r.u16le())
                let value = try r.bytes(length)
                out.streamValues.append((handle, StreamValue(value)))
            }
            out.info.fields = [("values", .int(out.streamValues.count))]
        default:
            let rest = r.rest()
            out.info.value = rest
            out.undecodedBytes += rest.count
            out.diagnostics.append(Diagnostic(ATTDiagnostics.unknownOpcode,
                                              "ATT opcode \(Hex.value(opcode.rawValue, width: 2)) is not defined; \(rest.count) bytes not decoded",
                                              fields: [("opcode", .hex(opcode.rawValue))]))
        }
    }

    private func uuidLabel(_ uuid: BluetoothUUID) -> String {
        GATTNames.name(uuid).map { "\($0) (\(uuid))" } ?? uuid.description
    }

    private mutating func findInformation(_ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key) throws(ShortRead) {
        let format = try r.u8()
        let size = format == 1 ? 2 : 16
        var items: [String] = []
        while !r.isAtEnd {
            let handle = try r.u16le()
            guard let uuid = try BluetoothUUID.read(&r, size: size) else { break }
            items.append("\(Hex.value(handle, width: 4)) \(uuidLabel(uuid))")
            gatt.update(db) { $0.addAttribute(handle, uuid) }
        }
        out.info.fields = [("attributes", .string(items.joined(separator: ", ")))]
    }

    private mutating func readByType(_ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key,
                                     request: ATTBearer.Request?) throws(ShortRead) {
        let length = Int(try r.u8())
        guard length >= 2 else { throw ShortRead(offset: 1, needed: 2, available: length) }
        var items: [String] = []
        let isCharacteristic = request?.type?.sig16 == GATTNames.characteristic
        while !r.isAtEnd {
            let handle = try r.u16le()
            var item = ByteReader(try r.bytes(length - 2))
            if isCharacteristic {
                let properties = try item.u8()
                let valueHandle = try item.u16le()
                guard let uuid = try BluetoothUUID.read(&item, size: item.remaining) else { continue }
                items.append("\(Hex.value(valueHandle, width: 4)) \(uuidLabel(uuid)) props \(Hex.value(properties, width: 2))")
                gatt.update(db) {
                    $0.addCharacteristic(.init(declaration: handle, valueHandle: valueHandle, properties: properties, uuid: uuid))
                }
            } else {
                let value = item.rest()
                var text = "\(Hex.value(handle, width: 4)) \(Hex.string(value))"
                if let t = request?.type?.sig16, GATTNames.stringCharacteristics.contains(t) {
                    text = "\(Hex.value(handle, width: 4)) \"\(String(decoding: value, as: UTF8.self))\""
                }
                items.append(text)
            }
        }
        out.info.fields = [(isCharacteristic ? "characteristics" : "values", .string(items.joined(separator: ", ")))]
    }

    private mutating func readByGroupType(_ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key) throws(ShortRead) {
        let length = Int(try r.u8())
        guard length >= 6 else { throw ShortRead(offset: 1, needed: 6, available: length) }
        var items: [String] = []
        while !r.isAtEnd {
            let start = try r.u16le()
            let end = try r.u16le()
            var item = ByteReader(try r.bytes(length - 4))
            guard let uuid = try BluetoothUUID.read(&item, size: item.remaining) else { continue }
            items.append("\(Hex.value(start, width: 4))-\(Hex.value(end, width: 4)) \(uuidLabel(uuid))")
            gatt.update(db) { $0.addService(.init(start: start, end: end, uuid: uuid)) }
        }
        out.info.fields = [("services", .string(items.joined(separator: ", ")))]
    }

    private mutating func readValue(_ opcode: ATTOpcode, _ value: ArraySlice<UInt8>, _ out: inout ATTResult,
                                    db: GATTStore.Key, client c: Int, record: Int, truncated: Bool) {
        let request = bearer.pending[c]
        bearer.pending[c] = nil
        out.info.value = value
        guard let handle = request?.handle else { return }
        out.info.handle = handle
        let uuid = gatt.uuid(db, handle)
        let full = value.count >= bearer.mtu - 1
        if opcode == .readResponse {
            if full && !truncated {
                bearer.longRead[c] = .init(handle: handle, value: Array(value), firstRecord: record)
            } else if let text = Self.text(uuid, value) {
                out.info.fields.append(("text", .string(text)))
            }
            return
        }
        guard var lr = bearer.longRead[c], lr.handle == handle, lr.value.count == request?.offset else { return }
        lr.value.append(contentsOf: value)
        bearer.longRead[c] = lr
        if !full || truncated { finishLongRead(c, db: db, &out) }
    }

    private mutating func finishLongRead(_ c: Int, db: GATTStore.Key, _ out: inout ATTResult) {
        guard let lr = bearer.longRead[c] else { return }
        bearer.longRead[c] = nil
        let uuid = gatt.uuid(db, lr.handle)
        out.gattValues.append(GATTValue(kind: .longRead, handle: lr.handle, uuid: uuid, value: lr.value,
                                        firstRecord: lr.firstRecord, text: Self.text(uuid, lr.value[...])))
    }

    private mutating func prepare(_ c: Int, handle: UInt16, offset: Int, value: ArraySlice<UInt8>, record: Int,
                                  truncated: Bool, _ out: inout ATTResult) {
        if truncated { out.streamHoles.append(handle); return }
        guard bearer.preparedBytes[c] + value.count <= ATTBearer.prepareQueueLimit else {
            out.undecodedBytes += value.count
            out.diagnostics.append(Diagnostic(ATTDiagnostics.queueFull,
                                              "prepared writes exceed \(ATTBearer.prepareQueueLimit) bytes; \(value.count) bytes not kept",
                                              fields: [("limit", .int(ATTBearer.prepareQueueLimit))]))
            return
        }
        bearer.preparedBytes[c] += value.count
        bearer.prepared[c].append(.init(handle: handle, offset: offset, value: Array(value), record: record))
    }

    private mutating func execute(_ c: Int, write: Bool, db: GATTStore.Key, record: Int, _ out: inout ATTResult) {
        let queue = bearer.prepared[c]
        bearer.prepared[c] = []
        bearer.preparedBytes[c] = 0
        guard !queue.isEmpty else {
            if write {
                out.diagnostics.append(Diagnostic(ATTDiagnostics.executeWithoutPrepare,
                                                  "Execute Write Request but no Prepare Write Request was captured before it"))
            }
            return
        }
        var handles: [UInt16] = []
        for p in queue where !handles.contains(p.handle) { handles.append(p.handle) }
        for handle in handles {
            // Offsets say where each part goes; the spec lets a client send them in any order.
            let parts = queue.filter { $0.handle == handle }.sorted { $0.offset < $1.offset }
            var value: [UInt8] = []
            for part in parts {
                if part.offset != value.count {
                    out.diagnostics.append(Diagnostic(ATTDiagnostics.prepareGap,
                                                      "prepared write for \(Hex.value(handle, width: 4)) at offset \(part.offset), expected offset \(value.count)",
                                                      fields: [("expected", .int(value.count)), ("actual", .int(part.offset))]))
                }
                value.append(contentsOf: part.value)
            }
            let uuid = gatt.uuid(db, handle)
            out.gattValues.append(GATTValue(kind: write ? .longWrite : .longWriteCancelled, handle: handle, uuid: uuid,
                                            value: value, firstRecord: parts.first?.record ?? record,
                                            text: write ? Self.text(uuid, value[...]) : nil))
            if write { out.streamValues.append((handle, .joined(value))) }
        }
    }

    static func text(_ uuid: BluetoothUUID?, _ value: ArraySlice<UInt8>) -> String? {
        guard let v = uuid?.sig16, GATTNames.stringCharacteristics.contains(v) else { return nil }
        let end = value.firstIndex(of: 0) ?? value.endIndex
        return String(decoding: value[value.startIndex..<end], as: UTF8.self)
    }
}

extension BluetoothUUID {
    /// A UUID given as a whole value (2, 4 or 16 bytes, little-endian); nil for other sizes.
    static func read(_ bytes: ArraySlice<UInt8>) -> BluetoothUUID? {
        var r = ByteReader(bytes)
        return (try? BluetoothUUID.read(&r, size: bytes.count)) ?? nil
    }
}
