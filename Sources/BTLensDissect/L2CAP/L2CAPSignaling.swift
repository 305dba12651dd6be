import BTLensCore

/// An L2CAP signalling command code (Core Specification, Vol 3, Part A, §4). Open: unknown codes still print.
public struct L2CAPSignalingCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.table[Int(rawValue)]?.name ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }

    /// How a command's data is read.
    enum Parameters {
        /// PSM and source CID: the request of a new channel.
        case connectionRequest
        case connectionResponse, leCreditBasedConnectionResponse
        /// Destination and source CID; the response closes the channel.
        case disconnectionRequest, disconnectionResponse
        /// Destination CID, then options not read.
        case configuration
        case connectionParameterUpdate
        /// Not read: the name alone is shown.
        case none
    }

    struct Definition {
        var name: String
        var parameters: Parameters
        /// Bytes of data the parameters need; a shorter command shows its name alone.
        var minimumSize: Int
    }

    /// Every command: its name, how its data is read, and how many bytes that needs. Requests and
    /// responses travel either way: either side of a link may ask.
    private static let definitions: [(UInt8, Definition)] = [
        (0x01, .init(name: "Command Reject", parameters: .none, minimumSize: 0)),
        (0x02, .init(name: "Connection Request", parameters: .connectionRequest, minimumSize: 4)),
        (0x03, .init(name: "Connection Response", parameters: .connectionResponse, minimumSize: 0)),
        (0x04, .init(name: "Configuration Request", parameters: .configuration, minimumSize: 2)),
        (0x05, .init(name: "Configuration Response", parameters: .configuration, minimumSize: 2)),
        (0x06, .init(name: "Disconnection Request", parameters: .disconnectionRequest, minimumSize: 4)),
        (0x07, .init(name: "Disconnection Response", parameters: .disconnectionResponse, minimumSize: 4)),
        (0x08, .init(name: "Echo Request", parameters: .none, minimumSize: 0)),
        (0x09, .init(name: "Echo Response", parameters: .none, minimumSize: 0)),
        (0x0a, .init(name: "Information Request", parameters: .none, minimumSize: 0)),
        (0x0b, .init(name: "Information Response", parameters: .none, minimumSize: 0)),
        (
            0x12,
            .init(
                name: "Connection Parameter Update Request", parameters: .connectionParameterUpdate,
                minimumSize: 8)
        ),
        (0x13, .init(name: "Connection Parameter Update Response", parameters: .none, minimumSize: 0)),
        (0x14, .init(name: "LE Credit Based Connection Request", parameters: .connectionRequest, minimumSize: 4)),
        (
            0x15,
            .init(
                name: "LE Credit Based Connection Response", parameters: .leCreditBasedConnectionResponse,
                minimumSize: 0)
        ),
        (0x16, .init(name: "Flow Control Credit Indication", parameters: .none, minimumSize: 0)),
        (0x17, .init(name: "Credit Based Connection Request", parameters: .connectionRequest, minimumSize: 4)),
        (0x18, .init(name: "Credit Based Connection Response", parameters: .none, minimumSize: 0)),
        (0x19, .init(name: "Credit Based Reconfigure Request", parameters: .none, minimumSize: 0)),
        (0x1a, .init(name: "Credit Based Reconfigure Response", parameters: .none, minimumSize: 0)),
    ]

    /// `definitions` by code: a lookup per command is an array index.
    static let table: [Definition?] = {
        var table = [Definition?](repeating: nil, count: 256)
        for (code, definition) in definitions { table[Int(code)] = definition }
        return table
    }()
}

/// Protocol/service multiplexers (Assigned Numbers), for naming dynamic channels.
public enum PSM {
    public static let sdp: UInt16 = 0x0001
    public static let rfcomm: UInt16 = 0x0003
    public static let att: UInt16 = 0x001f

    public static func name(_ psm: UInt16) -> String {
        let names: [UInt16: String] = [
            0x0001: "SDP", 0x0003: "RFCOMM", 0x0005: "TCS-BIN", 0x000f: "BNEP", 0x0011: "HID Control",
            0x0013: "HID Interrupt", 0x0017: "AVCTP", 0x0019: "AVDTP", 0x001b: "AVCTP Browsing",
            0x001f: "ATT", 0x0023: "LE PSM IPSP", 0x0025: "OTS", 0x0027: "EATT",
        ]
        return names[psm] ?? "PSM \(Hex.value(psm, width: 4))"
    }
}

public struct L2CAPSignalingInfo: Sendable {
    public var code: L2CAPSignalingCode
    public var identifier: UInt8
    public var fields: [(String, FieldValue)]
}

/// Which PSM each dynamic channel carries, learned from connection requests and responses.
/// Kept per connection and freed with it; channels per connection are bounded by the CID space.
struct L2CAPChannelMap {
    struct Key: Hashable {
        var connection: ConnectionKey
        /// The direction of the data that carries this CID in its header (the CID is the receiver's).
        var direction: Direction
        var cid: UInt16
    }

    private var channels: [Key: UInt16] = [:]
    /// Requests waiting for a response: (connection, identifier, requester) → (PSM, requester's CID).
    private var pending: [PendingKey: (psm: UInt16, cid: UInt16)] = [:]
    struct PendingKey: Hashable {
        var connection: ConnectionKey
        var identifier: UInt8
        var requester: Direction
    }

    func psm(_ connection: ConnectionKey, _ direction: Direction, _ cid: UInt16) -> UInt16? {
        channels[Key(connection: connection, direction: direction, cid: cid)]
    }

    /// Decodes one signalling PDU (several commands may share it) and updates the map.
    mutating func decode(_ payload: ArraySlice<UInt8>, connection: ConnectionKey, direction: Direction)
        -> (commands: [L2CAPSignalingInfo], diagnostics: [Diagnostic])
    {
        var r = ByteReader(payload)
        var commands: [L2CAPSignalingInfo] = []
        while !r.isAtEnd {
            guard let code = try? r.u8(), let id = try? r.u8(), let length = try? r.u16le(),
                let data = try? r.bytes(Int(length))
            else {
                let d = Diagnostic(
                    L2CAPDiagnostics.signalingMalformed,
                    "signalling command at offset \(r.offset) runs past the end of its PDU (\(r.remaining) bytes left)",
                    fields: [("offset", .int(r.offset))])
                return (commands, [d])
            }
            var info = L2CAPSignalingInfo(code: L2CAPSignalingCode(rawValue: code), identifier: id, fields: [])
            if let definition = L2CAPSignalingCode.table[Int(code)], data.count >= definition.minimumSize {
                var p = ByteReader(data)
                info.fields = parameters(definition.parameters, id, &p, connection: connection, direction: direction)
            }
            commands.append(info)
        }
        return (commands, [])
    }

    /// The fields of one command whose data is at least its minimum size, and what it changes in the map.
    private mutating func parameters(
        _ parameters: L2CAPSignalingCode.Parameters, _ id: UInt8, _ p: inout ByteReader,
        connection: ConnectionKey, direction: Direction
    ) -> [(String, FieldValue)] {
        switch parameters {
        case .connectionRequest:
            let psm = (try? p.u16le()) ?? 0
            let scid = (try? p.u16le()) ?? 0
            pending[PendingKey(connection: connection, identifier: id, requester: direction)] = (psm, scid)
            return [("psm", .hex(psm)), ("psm_name", .string(PSM.name(psm))), ("source_cid", .hex(scid))]
        case .connectionResponse:
            let dcid = (try? p.u16le()) ?? 0
            let scid = (try? p.u16le()) ?? 0
            let result = (try? p.u16le()) ?? 0xffff
            // Result 1 is "pending": the final response follows with the same identifier.
            if result != 1 {
                connected(connection, id, requester: direction.opposite, responderCID: dcid, ok: result == 0)
            }
            return [("destination_cid", .hex(dcid)), ("source_cid", .hex(scid)), ("result", .int(result))]
        case .leCreditBasedConnectionResponse:
            let dcid = (try? p.u16le()) ?? 0
            _ = try? p.skip(6)
            let result = (try? p.u16le()) ?? 0xffff
            connected(connection, id, requester: direction.opposite, responderCID: dcid, ok: result == 0)
            return [("destination_cid", .hex(dcid)), ("result", .int(result))]
        case .disconnectionRequest, .disconnectionResponse:
            let dcid = (try? p.u16le()) ?? 0
            let scid = (try? p.u16le()) ?? 0
            if parameters == .disconnectionResponse {
                channels[Key(connection: connection, direction: direction, cid: dcid)] = nil
                channels[Key(connection: connection, direction: direction.opposite, cid: scid)] = nil
            }
            return [("destination_cid", .hex(dcid)), ("source_cid", .hex(scid))]
        case .configuration:
            return [("cid", .hex((try? p.u16le()) ?? 0))]
        case .connectionParameterUpdate:
            let min = (try? p.u16le()) ?? 0
            let max = (try? p.u16le()) ?? 0
            let latency = (try? p.u16le()) ?? 0
            let timeout = (try? p.u16le()) ?? 0
            return [
                ("interval_min", .int(min)), ("interval_max", .int(max)), ("latency", .int(latency)),
                ("timeout_ms", .int(Int(timeout) * 10)),
            ]
        case .none:
            return []
        }
    }

    /// A successful response: data from the requester goes to the responder's CID, and back to the requester's.
    private mutating func connected(
        _ connection: ConnectionKey, _ id: UInt8, requester: Direction,
        responderCID: UInt16, ok: Bool
    ) {
        let key = PendingKey(connection: connection, identifier: id, requester: requester)
        guard let (psm, requesterCID) = pending.removeValue(forKey: key), ok else { return }
        channels[Key(connection: connection, direction: requester, cid: responderCID)] = psm
        channels[Key(connection: connection, direction: requester.opposite, cid: requesterCID)] = psm
    }

    mutating func close(_ connection: ConnectionKey) {
        channels = channels.filter { $0.key.connection != connection }
        pending = pending.filter { $0.key.connection != connection }
    }
}
