import BTLensCore

/// Advertising and scan response data (Core v5.4 Vol 3 Part C §11; types from Assigned Numbers
/// §2.3): length-type-value structures, of which the name, flags, TX power, 16-bit service UUIDs and
/// the manufacturer's company are shown.
enum LLADStructures {
    static func fields(_ data: ArraySlice<UInt8>) -> [(String, FieldValue)] {
        var r = ByteReader(data)
        var f: [(String, FieldValue)] = []
        var services: [String] = []
        while r.remaining > 0 {
            guard let length = try? r.u8(), length > 0, let type = try? r.u8(),
                let value = try? r.bytes(Int(length) - 1)
            else { break }
            switch type {
            case 0x01: f.append(("ad_flags", .hex(Int64(value.first ?? 0), digits: 2)))
            case 0x02, 0x03:
                var u = ByteReader(value)
                while let v = try? u.u16le() { services.append(Hex.value(v, width: 4)) }
            case 0x08, 0x09: f.append(("local_name", .string(String(decoding: value, as: UTF8.self))))
            case 0x0a: f.append(("tx_power", .int(Int8(bitPattern: value.first ?? 0))))
            case 0xff:
                var u = ByteReader(value)
                if let company = try? u.u16le() { f.append(("company_id", .hex(Int64(company), digits: 4))) }
            default: break
            }
        }
        if !services.isEmpty { f.append(("services", .string(services.joined(separator: " ")))) }
        return f
    }
}
