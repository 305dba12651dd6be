import BTLensCore

/// The parameters of signalling commands that change no channel: configuration options,
/// information types and results, rejects (Core Vol 3 Part A §4, §5).
extension L2CAPSignalingCode {
    /// Configuration Request (§4.4): destination CID, flags, options; Response (§4.5): source CID,
    /// flags, result, options. Either way the CID is the receiver's.
    static func configuration(_ p: inout ByteReader, response: Bool) -> [(String, FieldValue)] {
        var fields: [(String, FieldValue)] = []
        guard let cid = try? p.u16le(), let flags = try? p.u16le() else { return fields }
        fields = [("cid", .hex(cid)), ("flags", .int(flags))]
        if response, let result = try? p.u16le() {
            fields += [
                ("result", .int(result)), ("result_name", .string(configurationResults[Int(result)] ?? "Unknown")),
            ]
        }
        while let type = try? p.u8(), let length = try? p.u8(), let value = try? p.bytes(Int(length)) {
            fields += option(type & 0x7f, ByteReader(value))
        }
        return fields
    }

    /// Result values of a Configuration Response (§4.5).
    static let configurationResults = [
        0: "Success", 1: "Unacceptable parameters", 2: "Rejected", 3: "Unknown options", 4: "Pending",
        5: "Flow spec rejected",
    ]

    /// Modes of the Retransmission and Flow Control option (§5.4).
    static let modes = ["Basic", "Retransmission", "Flow Control", "Enhanced Retransmission", "Streaming"]

    /// One configuration option (§5), its hint bit dropped; an option cut short, or of a type not
    /// named here, gives only its type.
    private static func option(_ type: UInt8, _ value: ByteReader) -> [(String, FieldValue)] {
        var v = value
        switch type {
        case 0x01: if let mtu = try? v.u16le() { return [("mtu", .int(mtu))] }
        case 0x02: if let flush = try? v.u16le() { return [("flush_timeout", .int(flush))] }
        case 0x04:
            if let mode = try? v.u8(), let window = try? v.u8(), let transmit = try? v.u8(),
                let retransmission = try? v.u16le(), let monitor = try? v.u16le(), let mps = try? v.u16le()
            {
                return [
                    ("mode", .string(Int(mode) < modes.count ? modes[Int(mode)] : "Unknown (\(mode))")),
                    ("tx_window", .int(window)), ("max_transmit", .int(transmit)),
                    ("retransmission_timeout_ms", .int(retransmission)), ("monitor_timeout_ms", .int(monitor)),
                    ("mps", .int(mps)),
                ]
            }
        case 0x05: if let fcs = try? v.u8() { return [("fcs", .string(fcs == 0 ? "No FCS" : "16-bit FCS"))] }
        case 0x07: if let window = try? v.u16le() { return [("extended_window_size", .int(window))] }
        default: break
        }
        return [("option", .hex(type))]
    }

    /// Information Request (§4.10) and Response (§4.11): the type, then the result and its data.
    static func information(_ p: inout ByteReader, response: Bool) -> [(String, FieldValue)] {
        guard let type = try? p.u16le() else { return [] }
        let names = [1: "Connectionless MTU", 2: "Extended Features Supported", 3: "Fixed Channels Supported"]
        var fields: [(String, FieldValue)] = [
            ("info_type", .hex(type)), ("info_type_name", .string(names[Int(type)] ?? "Unknown")),
        ]
        guard response, let result = try? p.u16le() else { return fields }
        fields += [("result", .int(result)), ("result_name", .string(result == 0 ? "Success" : "Not supported"))]
        guard result == 0 else { return fields }
        switch type {
        case 1: if let mtu = try? p.u16le() { fields.append(("mtu", .int(mtu))) }
        case 2: if let mask = try? p.u32le() { fields.append(("extended_features", .hex(mask))) }
        case 3: if let mask = try? p.bytes(8) { fields.append(("fixed_channels", .bytes(Array(mask)))) }
        default: break
        }
        return fields
    }

    /// Command Reject (§4.1): the reason, by name.
    static func reject(_ p: inout ByteReader) -> [(String, FieldValue)] {
        guard let reason = try? p.u16le() else { return [] }
        let names = [0: "Command not understood", 1: "Signaling MTU exceeded", 2: "Invalid CID in request"]
        return [("reason", .int(reason)), ("reason_name", .string(names[Int(reason)] ?? "Unknown"))]
    }
}
