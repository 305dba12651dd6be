import BTLensCore

/// How an opcode's parameters are read (the decoder column of `ATTOpcode.definitions`).
enum ATTParameters {
    case errorResponse, mtuRequest, mtuResponse
    /// A handle range, and for some requests a type (and value) to look for.
    case range
    case findInformationResponse, findByTypeValueResponse, readByTypeResponse, readByGroupTypeResponse
    case readRequest, readBlobRequest
    /// A value read, or part of one (Read Response, Read Blob Response).
    case readValue
    /// A list of handles (Read Multiple requests), and the values that answer them.
    case handles, values
    /// A handle and the value written to it or sent from it.
    case handleValue
    case signedWrite
    /// Answers a write: its handle is the request's.
    case writeResponse
    case prepareWriteRequest, prepareWriteResponse, executeWriteRequest
    case multipleHandleValues
    /// No parameters (Handle Value Confirmation).
    case none
}

/// The parameters of each PDU, after its opcode (Core Specification, Vol 3, Part F, §3.4).
extension ATTDecoder {
    mutating func decodeParameters(
        _ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult,
        db: GATTStore.Key, direction: Direction, client: Direction, record: Int,
        truncated: Bool
    ) throws(ShortRead) {
        let c = Int(client.rawValue)
        // A new request from a client ends any long read it had in progress.
        if !opcode.isFromServer, opcode != .readBlobRequest, opcode != .writeCommand, opcode != .signedWriteCommand,
            opcode != .handleValueConfirmation
        {
            finishLongRead(c, db: db, &out)
        }
        guard let parameters = opcode.parameters else { return unknown(opcode, &r, &out) }
        switch parameters {
        case .errorResponse: try errorResponse(&r, &out, db: db, client: c)
        case .mtuRequest:
            let mtu = Int(try r.u16le())
            bearer.clientMTU[c] = mtu
            out.info.fields = [("client_rx_mtu", .int(mtu))]
        case .mtuResponse:
            let server = Int(try r.u16le())
            let clientMTU = bearer.clientMTU[c] ?? server
            bearer.mtu = max(ATTBearer.defaultLEMTU, min(server, clientMTU))
            out.info.fields = [("server_rx_mtu", .int(server)), ("mtu", .int(bearer.mtu))]
        case .range: try rangeRequest(opcode, &r, &out, client: c)
        case .findInformationResponse: try findInformation(&r, &out, db: db)
        case .findByTypeValueResponse: try findByTypeValue(&r, &out, db: db, client: c)
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
        case .readBlobRequest: try readBlobRequest(opcode, &r, &out, db: db, client: c)
        case .readValue: readValue(opcode, r.rest(), &out, db: db, client: c, record: record, truncated: truncated)
        case .handles:
            var handles: [String] = []
            while !r.isAtEnd { handles.append(Hex.value(try r.u16le(), width: 4)) }
            out.info.fields = [("handles", .string(handles.joined(separator: " ")))]
            bearer.pending[c] = ATTBearer.Request(opcode: opcode)
        case .values:
            out.info.value = r.rest()
            bearer.pending[c] = nil
        case .handleValue: try handleValue(opcode, &r, &out, client: c, truncated: truncated)
        case .signedWrite: try signedWrite(&r, &out, truncated: truncated)
        case .writeResponse:
            out.info.handle = bearer.pending[c]?.handle
            bearer.pending[c] = nil
        case .prepareWriteRequest: try prepareWrite(&r, &out, client: c, record: record, truncated: truncated)
        case .prepareWriteResponse:
            out.info.handle = try r.u16le()
            out.info.fields = [("offset", .int(try r.u16le()))]
            out.info.value = r.rest()
        case .executeWriteRequest:
            let flags = try r.u8()
            out.info.fields = [("flags", .string(flags == 1 ? "write" : flags == 0 ? "cancel" : "reserved (\(flags))"))]
            execute(c, write: flags == 1, db: db, record: record, &out)
            bearer.pending[c] = ATTBearer.Request(opcode: opcode)
        case .multipleHandleValues: try multipleHandleValues(&r, &out)
        case .none:
            break
        }
    }

    private mutating func errorResponse(
        _ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key,
        client c: Int
    ) throws(ShortRead) {
        let request = ATTOpcode(rawValue: try r.u8())
        let handle = try r.u16le()
        let error = ATTErrorCode(rawValue: try r.u8())
        out.info.handle = handle
        out.info.fields = [
            ("request", .string(request.name)), ("error", .string(error.name)),
            ("error_code", .hex(error.rawValue)),
        ]
        if request == .readBlobRequest { finishLongRead(c, db: db, &out) }
        bearer.pending[c] = nil
    }

    /// Find Information, Find By Type Value, Read By Type and Read By Group Type requests.
    private mutating func rangeRequest(
        _ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult,
        client c: Int
    ) throws(ShortRead) {
        let start = try r.u16le()
        let end = try r.u16le()
        var request = ATTBearer.Request(opcode: opcode)
        out.info.fields = [("start", .hex(start)), ("end", .hex(end))]
        if opcode == .findByTypeValueRequest {
            let type = BluetoothUUID.bit16(try r.u16le())
            let value = r.rest()
            request.type = BluetoothUUID.read(value)
            out.info.fields += [
                ("attribute_type", .string(uuidLabel(type))), ("attribute_value", .bytes(Array(value))),
            ]
            out.info.byType = .attributeType(type)
        } else if opcode != .findInformationRequest {
            let type = try BluetoothUUID.read(&r, size: r.remaining)
            request.type = type
            if let t = type {
                out.info.fields.append(("attribute_type", .string(uuidLabel(t))))
                out.info.byType = .attributeType(t)
            }
        }
        bearer.pending[c] = request
    }

    private mutating func findByTypeValue(
        _ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key,
        client c: Int
    ) throws(ShortRead) {
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
    }

    private mutating func readBlobRequest(
        _ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult,
        db: GATTStore.Key, client c: Int
    ) throws(ShortRead) {
        let handle = try r.u16le()
        let offset = Int(try r.u16le())
        out.info.handle = handle
        out.info.fields = [("offset", .int(offset))]
        if let lr = bearer.longRead[c], lr.handle != handle || lr.value.count != offset {
            finishLongRead(c, db: db, &out)
        }
        bearer.pending[c] = ATTBearer.Request(opcode: opcode, handle: handle, offset: offset)
    }

    /// Write Request, Write Command, Handle Value Notification and Indication: the input of streams.
    private mutating func handleValue(
        _ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult,
        client c: Int, truncated: Bool
    ) throws(ShortRead) {
        let handle = try r.u16le()
        out.info.handle = handle
        if opcode == .writeRequest { bearer.pending[c] = ATTBearer.Request(opcode: opcode, handle: handle) }
        if truncated {
            out.streamHoles.append(handle)
        } else {
            out.streamValues.append((handle, .inPDU(r.remainingIndices)))
        }
        if keepsValues { out.info.value = r.rest() }
    }

    private func signedWrite(_ r: inout ByteReader, _ out: inout ATTResult, truncated: Bool) throws(ShortRead) {
        let handle = try r.u16le()
        out.info.handle = handle
        guard r.remaining >= 12 || truncated else {
            throw ShortRead(offset: r.offset, needed: 12, available: r.remaining)
        }
        let value = try r.bytes(max(r.remaining - 12, 0))
        out.info.value = value
        out.info.fields = [("signature", .bytes(Array(r.rest())))]
        if truncated { out.streamHoles.append(handle) } else { out.streamValues.append((handle, StreamValue(value))) }
    }

    private mutating func prepareWrite(
        _ r: inout ByteReader, _ out: inout ATTResult, client c: Int, record: Int,
        truncated: Bool
    ) throws(ShortRead) {
        let handle = try r.u16le()
        let offset = Int(try r.u16le())
        let value = r.rest()
        out.info.handle = handle
        out.info.value = value
        out.info.fields = [("offset", .int(offset))]
        prepare(c, handle: handle, offset: offset, value: value, record: record, truncated: truncated, &out)
    }

    private func multipleHandleValues(_ r: inout ByteReader, _ out: inout ATTResult) throws(ShortRead) {
        while !r.isAtEnd {
            let handle = try r.u16le()
            let length = Int(try r.u16le())
            let value = try r.bytes(length)
            out.streamValues.append((handle, StreamValue(value)))
        }
        out.info.fields = [("values", .int(out.streamValues.count))]
    }

    private func unknown(_ opcode: ATTOpcode, _ r: inout ByteReader, _ out: inout ATTResult) {
        let rest = r.rest()
        out.info.value = rest
        out.undecodedBytes += rest.count
        out.diagnostics.append(
            Diagnostic(
                ATTDiagnostics.unknownOpcode,
                "ATT opcode \(Hex.value(opcode.rawValue, width: 2)) is not defined; \(rest.count) bytes not decoded",
                fields: [("opcode", .hex(opcode.rawValue))]))
    }

    private func uuidLabel(_ uuid: BluetoothUUID) -> String {
        GATTNames.name(uuid).map { "\($0) (\(uuid))" } ?? uuid.description
    }

    private mutating func findInformation(
        _ r: inout ByteReader, _ out: inout ATTResult,
        db: GATTStore.Key
    ) throws(ShortRead) {
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

    private mutating func readByType(
        _ r: inout ByteReader, _ out: inout ATTResult, db: GATTStore.Key,
        request: ATTBearer.Request?
    ) throws(ShortRead) {
        let length = Int(try r.u8())
        guard length >= 2 else { throw ShortRead(offset: 1, needed: 2, available: length) }
        var items: [String] = []
        var data: [ATTAttributeData] = []
        let isCharacteristic = request?.type?.sig16 == GATTNames.characteristic
        while !r.isAtEnd {
            let handle = try r.u16le()
            let element = try r.bytes(length - 2)
            data.append(ATTAttributeData(handle: handle, value: Array(element)))
            var item = ByteReader(element)
            if isCharacteristic {
                let properties = try item.u8()
                let valueHandle = try item.u16le()
                guard let uuid = try BluetoothUUID.read(&item, size: item.remaining) else { continue }
                let props = Hex.value(properties, width: 2)
                items.append("\(Hex.value(valueHandle, width: 4)) \(uuidLabel(uuid)) props \(props)")
                gatt.update(db) {
                    $0.addCharacteristic(
                        .init(
                            declaration: handle, valueHandle: valueHandle, properties: properties,
                            uuid: uuid))
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
        out.info.byType = .attributeData(data)
    }

    private mutating func readByGroupType(
        _ r: inout ByteReader, _ out: inout ATTResult,
        db: GATTStore.Key
    ) throws(ShortRead) {
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

    private mutating func readValue(
        _ opcode: ATTOpcode, _ value: ArraySlice<UInt8>, _ out: inout ATTResult,
        db: GATTStore.Key, client c: Int, record: Int, truncated: Bool
    ) {
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
        out.gattValues.append(
            GATTValue(
                kind: .longRead, handle: lr.handle, uuid: uuid, value: lr.value,
                firstRecord: lr.firstRecord, text: Self.text(uuid, lr.value[...])))
    }

    private mutating func prepare(
        _ c: Int, handle: UInt16, offset: Int, value: ArraySlice<UInt8>, record: Int,
        truncated: Bool, _ out: inout ATTResult
    ) {
        if truncated {
            out.streamHoles.append(handle)
            return
        }
        guard bearer.preparedBytes[c] + value.count <= ATTBearer.prepareQueueLimit else {
            out.undecodedBytes += value.count
            let limit = ATTBearer.prepareQueueLimit
            out.diagnostics.append(
                Diagnostic(
                    ATTDiagnostics.queueFull,
                    "prepared writes exceed \(limit) bytes; \(value.count) bytes not kept",
                    fields: [("limit", .int(limit))]))
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
                out.diagnostics.append(
                    Diagnostic(
                        ATTDiagnostics.executeWithoutPrepare,
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
                    let at = "at offset \(part.offset), expected offset \(value.count)"
                    out.diagnostics.append(
                        Diagnostic(
                            ATTDiagnostics.prepareGap, "prepared write for \(Hex.value(handle, width: 4)) \(at)",
                            fields: [("expected", .int(value.count)), ("actual", .int(part.offset))]))
                }
                value.append(contentsOf: part.value)
            }
            let uuid = gatt.uuid(db, handle)
            out.gattValues.append(
                GATTValue(
                    kind: write ? .longWrite : .longWriteCancelled, handle: handle, uuid: uuid,
                    value: value, firstRecord: parts.first?.record ?? record,
                    text: write ? Self.text(uuid, value[...]) : nil))
            if write { out.streamValues.append((handle, .joined(value))) }
        }
    }
}
