import BTLensCore

/// The parameters of SDP PDUs other than attribute responses (Core Vol 3 Part B §4.4-§4.7): what a
/// request asks for, what a search finds, why an error.
extension SDPDecoder {
    static func parameters(_ id: UInt8, _ params: ByteReader) -> [(String, FieldValue)] {
        var p = params
        var fields: [(String, FieldValue)] = []
        switch id {
        case 0x01:
            guard let code = try? p.u16be() else { break }
            fields = [("error_code", .hex(code)), ("error_name", .string(errorNames[Int(code)] ?? "Unknown"))]
        case 0x02:
            guard let pattern = try? SDPElement.parse(&p), let max = try? p.u16be() else { break }
            fields = [
                ("search_pattern", .string(pattern.uuids().map(describe).joined(separator: ", "))),
                ("max_records", .int(max)),
            ]
        case 0x03:
            guard let total = try? p.u16be(), let count = try? p.u16be() else { break }
            var handles: [String] = []
            for _ in 0..<count {
                guard let handle = try? p.u32be() else { break }
                handles.append(Hex.value(handle, width: 8))
            }
            fields = [("total_records", .int(total)), ("record_handles", .string(handles.joined(separator: " ")))]
        case 0x04:
            guard let handle = try? p.u32be(), let max = try? p.u16be(), let ids = try? attributes(&p) else { break }
            fields = [("record_handle", .hex(handle)), ("max_bytes", .int(max)), ("attribute_ids", ids)]
        case 0x06:
            guard let pattern = try? SDPElement.parse(&p), let max = try? p.u16be(), let ids = try? attributes(&p)
            else { break }
            fields = [
                ("search_pattern", .string(pattern.uuids().map(describe).joined(separator: ", "))),
                ("max_bytes", .int(max)), ("attribute_ids", ids),
            ]
        default: break
        }
        return fields
    }

    /// An attribute ID list (§4.6.1), a sequence of IDs (uint16) and ranges (uint32, from and to):
    /// `0x0001 0x0100-0x01ff`. Read from the bytes, as a range and an ID differ only in their size.
    private static func attributes(_ p: inout ByteReader) throws(ShortRead) -> FieldValue {
        let header = try p.u8()
        let size =
            switch header {
            case 0x36: Int(try p.u16be())
            case 0x37: Int(try p.u32be())
            default: Int(try p.u8())
            }
        var list = ByteReader(try p.bytes(size))
        var items: [String] = []
        while let type = try? list.u8() {
            switch type {
            case 0x09: items.append(Hex.value(try list.u16be(), width: 4))
            case 0x0a: items.append(Hex.value(try list.u16be(), width: 4) + "-" + Hex.value(try list.u16be(), width: 4))
            default: return .string(items.joined(separator: " "))
            }
        }
        return .string(items.joined(separator: " "))
    }

    /// Error codes of an SDP Error Response (§4.4.1).
    static let errorNames = [
        1: "Invalid/unsupported SDP version", 2: "Invalid Service Record Handle", 3: "Invalid request syntax",
        4: "Invalid PDU Size", 5: "Invalid Continuation State", 6: "Insufficient Resources to satisfy Request",
    ]
}
