import BTLensCore

/// An L2CAP signalling command code (Core Specification, Vol 3, Part A, §4). Open: unknown codes still print.
public struct L2CAPSignalingCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }

    static let names: [UInt8: String] = [
        0x01: "Command Reject", 0x02: "Connection Request", 0x03: "Connection Response",
        0x04: "Configuration Request", 0x05: "Configuration Response", 0x06: "Disconnection Request",
        0x07: "Disconnection Response", 0x08: "Echo Request", 0x09: "Echo Response", 0x0a: "Information Request",
        0x0b: "Information Response", 0x12: "Connection Parameter Update Request",
        0x13: "Connection Parameter Update Response", 0x14: "LE Credit Based Connection Request",
        0x15: "LE Credit Based Connection Response", 0x16: "Flow Control Credit Indication",
        0x17: "Credit Based Connection Request", 0x18: "Credit Based Connection Response",
        0x19: "Credit Based Reconfigure Request", 0x1a: "Credit Based Reconfigure Response",
    ]
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
        -> (commands: [L2CAPSignalingInfo], diagnostics: [Diagnostic]) {
        var r = ByteReader(payload)
        var commands: [L2CAPSignalingInfo] = []
        while !r.isAtEnd {
            guard let code = try? r.u8(), let id = try? r.u8(), let length = try? r.u16le(),
                  let data = try? r.bytes(Int(length)) else {
                let d = Diagnostic(L2CAPDiagnostics.signalingMalformed,
                                   "signalling command at offset \(r.offset) runs past the end of its PDU (\(r.remaining) bytes left)",
                                   fields: [("offset", .int(r.offset))])
                return (commands, [d])
            }
            var info = L2CAPSignalingInfo(code: L2CAPSignalingCode(rawValue: code), identifier: id, fields: [])
            var p = ByteReader(data)
            switch code {
            case 0x02, 0x14, 0x17:
                guard let psm = try? p.u16le(), let scid = try? p.u16le() else { break }
                info.fields = [("psm", .hex(psm)), ("psm_name", .string(PSM.name(psm))), ("source_cid", .hex(scid))]
                pending[PendingKey(connection: connection, identifier: id, requester: direction)] = (psm, scid)
            case 0x03, 0x15:
                let dcid = (try? p.u16le()) ?? 0
                if code == 0x03 {
                    let scid = (try? p.u16le()) ?? 0
                    let result = (try? p.u16le()) ?? 0xffff
                    info.fields = [("destination_cid", .hex(dcid)), ("source_cid", .hex(scid)), ("result", .int(result))]
                    // Result 1 is "pending": the final response follows with the same identifier.
                    if result != 1 { connected(connection, id, requester: direction.opposite, responderCID: dcid, ok: result == 0) }
                } else {
                    _ = try? p.skip(6)
                    let result = (try? p.u16le()) ?? 0xffff
                    info.fields = [("destination_cid", .hex(dcid)), ("result", .int(result))]
                    connected(connection, id, requester: direction.opposite, responderCID: dcid, ok: result == 0)
                }
            case 0x06, 0x07:
                guard let dcid = try? p.u16le(), let scid = try? p.u16le() else { break }
                info.fields = [("destination_cid", .hex(dcid)), ("source_cid", .hex(scid))]
                if code == 0x07 {
                    channels[Key(connection: connection, direction: direction, cid: dcid)] = nil
                    channels[Key(connection: connection, direction: direction.opposite, cid: scid)] = nil
                }
            case 0x04, 0x05:
                if let dcid = try? p.u16le() { info.fields = [("cid", .hex(dcid))] }
            case 0x12:
                guard let min = try? p.u16le(), let max = try? p.u16le(), let latency = try? p.u16le(),
                      let timeout = try? p.u16le() else { break }
                info.fields = [("interval_min", .int(min)), ("interval_max", .int(max)), ("latency", .int(latency)),
                               ("timeout_ms", .int(Int(timeout) * 10))]
            default:
                break
            }
            commands.append(info)
        }
        return (commands, [])
    }

    /// A successful response: data from the requester goes to the responder's CID, and back to the requester's.
    private mutating func connected(_ connection: ConnectionKey, _ id: UInt8, requester: Direction, responderCID: UInt16, ok: Bool) {
        guard let (psm, requesterCID) = pending.removeValue(forKey: PendingKey(connection: connection, identifier: id, requester: requester)),
              ok else { return }
        channels[Key(connection: connection, direction: requester, cid: responderCID)] = psm
        channels[Key(connection: connection, direction: requester.opposite, cid: requesterCID)] = psm
    }

    mutating func close(_ connection: ConnectionKey) {
        channels = channels.filter { $0.key.connection != connection }
        pending = pending.filter { $0.key.connection != connection }
    }
}
