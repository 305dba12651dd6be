import BTLensCore

/// One parameter of an HCI command, event or command's return, in the order of the specification's
/// tables (Core Vol 4 Part E §7), with the JSONL key it is shown under: the table rows of
/// `HCIOpcode` and `HCIEventCode` list them, and `read` decodes them in one place.
enum HCIParameter: Sendable, Equatable {
    /// Connection_Handle, its 12 bits: `handle`.
    case handle
    /// An error code by name: `status`.
    case status
    /// A BD_ADDR: `address`.
    case address
    /// An error code given as a reason, by name: `reason`.
    case reason
    case u8(String)
    case u16(String)
    case u32(String)
    /// A signed byte (RSSI, transmit power, in dBm).
    case i8(String)
    /// A signed 16-bit value (an RF path compensation, in 0.1 dB).
    case i16(String)
    /// Bytes the spec reserves.
    case reserved(Int)
    /// Shown in hex in text, a number in JSON (masks, types, lists of flags).
    case hex8(String)
    case hex16(String)
    case hex24(String)
    /// A time in units of the spec's size: the count under `name`, milliseconds under `name_ms`.
    case duration8(String, HCIUnit)
    case duration16(String, HCIUnit)
    /// One byte whose values the spec names; another value prints as a number.
    case choice(String, [String])
    /// Bytes as hex (features, masks of more than 3 bytes, advertising data).
    case bytes(String, count: Int)
    /// Keys and random numbers: only said to be there, as SMP's are.
    case secret(String, count: Int)
    /// A UTF-8 name of at most `count` bytes, ended by a NUL when shorter (Local_Name, Remote_Name).
    case text(String, count: Int)
    /// A Company_Identifier (Assigned Numbers §7): `company_id`, and `company` when named.
    case company
    /// A count byte, then that many items of `itemSize` bytes, as `"0x02 0x05"`.
    case list(String, itemSize: Int)
    /// A length byte, then that many bytes as hex (advertising data).
    case sized(String)
    /// What is left, as hex with its trailing zeros dropped (Extended Inquiry Response data).
    case rest(String)

    /// The fields of `layout` read from `p` onto `fields`; those before a parameter cut short stay.
    static func read(
        _ layout: [HCIParameter], _ p: inout ByteReader, into fields: inout [(String, FieldValue)]
    ) throws(ShortRead) {
        for parameter in layout { try parameter.read(&p, into: &fields) }
    }

    private func read(_ p: inout ByteReader, into fields: inout [(String, FieldValue)]) throws(ShortRead) {
        switch self {
        case .handle: fields.append(("handle", .hex(try p.u16le() & 0x0fff)))
        case .status: fields.append(("status", .string(HCIErrorCode(rawValue: try p.u8()).name)))
        case .address: fields.append(("address", .string(try BDAddr(&p).description)))
        case .reason: fields.append(("reason", .string(HCIErrorCode(rawValue: try p.u8()).name)))
        case .u8(let name): fields.append((name, .int(try p.u8())))
        case .u16(let name): fields.append((name, .int(try p.u16le())))
        case .u32(let name): fields.append((name, .int(try p.u32le())))
        case .i8(let name): fields.append((name, .int(try p.i8())))
        case .i16(let name): fields.append((name, .int(Int16(bitPattern: try p.u16le()))))
        case .reserved(let count): try p.skip(count)
        case .hex8(let name): fields.append((name, .hex(try p.u8())))
        case .hex16(let name): fields.append((name, .hex(try p.u16le())))
        case .hex24(let name): fields.append((name, .hex(Int64(try p.u24le()), digits: 6)))
        case .duration8(let name, let unit): fields += unit.fields(name, Int(try p.u8()))
        case .duration16(let name, let unit): fields += unit.fields(name, Int(try p.u16le()))
        case .choice(let name, let names):
            let v = try p.u8()
            fields.append((name, Int(v) < names.count ? .string(names[Int(v)]) : .int(v)))
        case .bytes(let name, let count): fields.append((name, .bytes(Array(try p.bytes(count)))))
        case .secret(let name, let count):
            try p.skip(count)
            fields.append((name, .string("present")))
        case .text(let name, let count):
            // A name the packet leaves out (a failed request's event stops before it) is not an empty one.
            guard p.remaining > 0 else { return }
            let raw = try p.bytes(min(count, p.remaining))
            fields.append((name, .string(String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self))))
        case .company:
            let id = try p.u16le()
            fields.append(("company_id", .hex(id)))
            if let name = CompanyIdentifier.name(id) { fields.append(("company", .string(name))) }
        case .list(let name, let itemSize):
            let count = Int(try p.u8())
            var items: [String] = []
            for _ in 0..<count { items.append("0x" + Hex.string(try p.bytes(itemSize).reversed())) }
            fields.append((name, .string(items.joined(separator: " "))))
        case .sized(let name): fields.append((name, .bytes(Array(try p.bytes(Int(try p.u8()))))))
        case .rest(let name):
            let rest = p.rest()
            let end = rest.lastIndex { $0 != 0 }.map { $0 + 1 } ?? rest.startIndex
            fields.append((name, .bytes(Array(rest[..<end]))))
        }
    }
}

/// The units HCI counts time in, each shown beside its count in milliseconds.
enum HCIUnit: Sendable, Equatable {
    /// Baseband slots of 0.625 ms (page timeout, scan intervals, sniff intervals, CE lengths).
    case slot
    /// LE connection intervals, 1.25 ms.
    case connectionInterval
    /// Supervision timeouts, 10 ms.
    case tenMilliseconds
    /// Inquiry_Length, 1.28 s.
    case inquiryLength

    func fields(_ name: String, _ count: Int) -> [(String, FieldValue)] {
        let ms: FieldValue =
            switch self {
            case .slot: .decimal(Int64(count) * 625, scale: 3)
            case .connectionInterval: .decimal(Int64(count) * 125, scale: 2)
            case .tenMilliseconds: .int(count * 10)
            case .inquiryLength: .int(count * 1280)
            }
        return [(name, .int(count)), (name + "_ms", ms)]
    }
}

/// The chip makers whose Company_Identifier (Assigned Numbers §7) phones' controllers report.
enum CompanyIdentifier {
    static func name(_ id: UInt16) -> String? {
        switch id {
        case 0x0000: "Ericsson"
        case 0x0002: "Intel"
        case 0x000a: "Qualcomm Technologies International (CSR)"
        case 0x000d: "Texas Instruments"
        case 0x000f: "Broadcom"
        case 0x001d: "Qualcomm"
        case 0x0046: "MediaTek"
        case 0x004c: "Apple"
        case 0x005d: "Realtek"
        case 0x0075: "Samsung"
        case 0x0131: "Cypress"
        default: nil
        }
    }
}
