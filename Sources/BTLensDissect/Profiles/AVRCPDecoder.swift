import BTLensCore

/// One decoded AVRCP message, and the problem found in it when its parameters were cut short
/// (what could be read is in the message).
public struct AVRCPDecoded: Sendable {
    public var message: ProfileMessage
    public var diagnostic: Diagnostic?
}

/// AVRCP over AVCTP (AVRCP 1.6.2): the control channel's AV/C frames (PSM 0x0017) and the browsing
/// channel's PDUs (PSM 0x001B). nil when the bytes are not even a header: they are shown undecoded.
/// Diagnostics' `offset` counts from the L2CAP payload for a single-packet message (AVCTP header
/// included) and from the joined AVRCP bytes for a fragmented one.
public enum AVRCPDecoder {
    /// An AV/C frame (AVRCP 1.6.2 §6.7, AV/C 4.0 §5): ctype, subunit, opcode, operands.
    public static func control(_ m: AVCTPMessage) -> AVRCPDecoded? {
        if let other = otherPID(m) { return other }
        var r = ByteReader(m.payload)
        guard let octet0 = try? r.u8(), let octet1 = try? r.u8(), let opcode = try? r.u8() else { return nil }
        let ctype = octet0 & 0x0f
        var fields = m.headerFields + [("ctype", .string(AVRCPNames.ctype(ctype)))]
        let (subunitType, subunitID) = (octet1 >> 3, octet1 & 0x07)
        if subunitType != 0x09 || subunitID != 0 {
            fields += [("subunit_type", .string(AVRCPNames.subunit(subunitType))), ("subunit_id", .int(subunitID))]
        }
        fields.append(("opcode", .hex(opcode)))
        var p = AVRCPParameters(m, fields: fields)
        let name: String
        switch opcode {
        case 0x30:
            name = "Unit Info"
            p.read(&r, "Unit Info") { (r, f) throws(ShortRead) in try unitInfo(&r, response: ctype >= 0x8, &f) }
        case 0x31:
            name = "Subunit Info"
            p.read(&r, "Subunit Info") { (r, f) throws(ShortRead) in try subunitInfo(&r, response: ctype >= 0x8, &f) }
        case 0x7c:
            guard let operation = r.peek() else { return nil }
            name = AVRCPNames.operation(operation & 0x7f)
            p.read(&r, name) { (r, f) throws(ShortRead) in try passThrough(&r, &f) }
        case 0x00:
            name = vendorDependent(&r, ctype: ctype, &p)
        default:
            name = "Opcode \(Hex.value(opcode, width: 2))"
        }
        return p.decoded(name)
    }

    /// A browsing PDU (AVRCP 1.6.2 §6.1.2, §6.10): PDU id, parameter length, parameters; no AV/C header.
    public static func browsing(_ m: AVCTPMessage) -> AVRCPDecoded? {
        if let other = otherPID(m) { return other }
        var r = ByteReader(m.payload)
        guard let pdu = try? r.u8(), let length = try? r.u16be() else { return nil }
        let name = AVRCPNames.pdu(pdu)
        var p = AVRCPParameters(m, fields: m.headerFields + [("pdu", .hex(pdu))])
        guard let parameters = p.parameters(&r, length: Int(length), of: name) else { return p.decoded(name) }
        var pr = ByteReader(parameters)
        p.read(&pr, name, base: 3) { (r, f) throws(ShortRead) in
            try browsingParameters(pdu, &r, command: m.isCommand, &f)
        }
        return p.decoded(name)
    }

    /// A message of another profile than AVRCP, or a response saying its PID is not registered:
    /// named, not decoded further.
    static func otherPID(_ m: AVCTPMessage) -> AVRCPDecoded? {
        let pid: [(String, FieldValue)] = [("pid", .hex(m.pid))]
        if m.invalidPID { return AVRCPDecoded(message: ProfileMessage(.avrcp, "Invalid PID", m.headerFields + pid)) }
        guard m.pid != AVCTPMessage.avrcpPID else { return nil }
        return AVRCPDecoded(message: ProfileMessage(.avrcp, "PID \(Hex.value(m.pid, width: 4))", m.headerFields + pid))
    }

    /// Unit Info (AV/C 4.0 §11.1): the command's operands are 0xff; the response names the unit.
    static func unitInfo(_ r: inout ByteReader, response: Bool, _ f: inout [(String, FieldValue)]) throws(ShortRead) {
        try r.skip(1)
        let unit = try r.u8()
        let company = try r.u24be()
        guard response else { return }
        f += [
            ("unit_type", .string(AVRCPNames.subunit(unit >> 3))), ("unit", .int(unit & 0x07)),
            ("company_id", .hex(Int64(company), digits: 6)),
        ]
    }

    /// Subunit Info (AV/C 4.0 §11.2): a page of four subunit entries (type and highest id; 0xff unused).
    static func subunitInfo(_ r: inout ByteReader, response: Bool, _ f: inout [(String, FieldValue)]) throws(ShortRead)
    {
        let page = try r.u8()
        let entries = try r.bytes(4)
        f.append(("page", .int((page >> 4) & 0x07)))
        guard response else { return }
        let subunits = entries.filter { $0 != 0xff }.map { "\(AVRCPNames.subunit($0 >> 3)) \($0 & 0x07)" }
        f.append(("subunits", .string(subunits.joined(separator: ", "))))
    }

    /// Pass Through (AV/C Panel Subunit 1.23 §9.4, AVRCP 1.6.2 §4.6.1): state flag, operation id,
    /// operation data; a vendor unique operation carries a company id and its own operation id.
    static func passThrough(_ r: inout ByteReader, _ f: inout [(String, FieldValue)]) throws(ShortRead) {
        let octet = try r.u8()
        let length = Int(try r.u8())
        var data = ByteReader(try r.bytes(length))
        f += [("operation", .hex(octet & 0x7f)), ("state", .string(octet & 0x80 == 0 ? "pressed" : "released"))]
        if octet & 0x7f == 0x7e, length >= 5 {
            f += [
                ("company_id", .hex(Int64(try data.u24be()), digits: 6)), ("vendor_operation", .hex(try data.u16be())),
            ]
        } else if length > 0 {
            f.append(("data", .bytes(Array(data.rest()))))
        }
    }
}

extension ByteReader {
    /// A big-endian 24-bit number (AV/C company ids).
    mutating func u24be() throws(ShortRead) -> UInt32 {
        let b = try bytes(3)
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
