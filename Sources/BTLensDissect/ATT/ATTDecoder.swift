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
    func withBytes<R>(
        in pdu: UnsafeBufferPointer<UInt8>, startIndex: Int,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
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
        if let hit = recent.first(where: { $0.handle == handle && $0.serverIsPeer == db.serverIsPeer }) {
            return hit.uuid
        }
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
    mutating func decode(
        _ r: inout ByteReader, direction: Direction, record: Int,
        time: Timestamp = Timestamp(microseconds: 0), truncated: Bool, into out: inout ATTResult
    ) {
        guard let raw = try? r.u8() else {
            out.diagnostics.append(Diagnostic(ATTDiagnostics.empty, "ATT PDU of 0 bytes: expected at least an opcode"))
            return
        }
        let opcode = ATTOpcode(rawValue: raw)
        // Set in place: `out` is empty, and a new info would destroy the one it holds.
        out.info.opcode = opcode
        out.info.truncated = truncated
        // Responses, notifications and indications come from the server; the rest go to it.
        let fromServer = opcode.isFromServer
        let serverIsPeer = fromServer ? direction == .received : direction == .sent
        let db = key(serverIsPeer)
        let client = fromServer ? direction.opposite : direction
        do {
            try decodeParameters(
                opcode, &r, &out, db: db, direction: direction, client: client, record: record,
                truncated: truncated)
        } catch {
            if truncated {
                out.streamHoles += out.info.handle.map { [$0] } ?? []
            } else {
                let needs = "needs \(error.needed) bytes at ATT offset \(error.offset), only \(error.available) left"
                out.diagnostics.append(
                    Diagnostic(
                        ATTDiagnostics.malformed, "\(opcode.name): \(needs)",
                        fields: [
                            ("offset", .int(error.offset)), ("needed", .int(error.needed)),
                            ("available", .int(error.available)),
                        ],
                        packetOffset: error.offset))
                out.undecodedBytes += error.available
            }
        }
        if let handle = out.info.handle, out.info.uuid == nil { out.info.uuid = uuid(db, handle) }
        lifecycle(r.bytes, &out, direction: direction, step: Lifecycle.Step(record: record, time: time), db: db)
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
