import BTLensCore

/// An SDP data element (Core Specification, Vol 3, Part B, §3): type and size descriptor, then data.
indirect enum SDPElement: Equatable {
    case uint(UInt64)
    /// UUIDs as SDP carries them: big-endian, 2, 4 or 16 bytes.
    case uuid([UInt8])
    case text(String)
    case sequence([SDPElement])
    case other

    /// Nesting deeper than this is hostile, not a service record.
    static let depthLimit = 16

    static func parse(_ r: inout ByteReader, depth: Int = 0) throws(ShortRead) -> SDPElement {
        let header = try r.u8()
        let type = header >> 3
        let sizeIndex = header & 0x07
        let size: Int
        switch sizeIndex {
        case 0...4: size = type == 0 ? 0 : 1 << Int(sizeIndex)
        case 5: size = Int(try r.u8())
        case 6: size = Int(try r.u16be())
        default: size = Int(try r.u32be())
        }
        var data = ByteReader(try r.bytes(size))
        switch type {
        // A uint128 does not fit: shifting it into a UInt64 would keep its low bits as another number.
        case 1 where size <= 8: return .uint(data.rest().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        case 3: return .uuid(Array(data.rest()))
        case 4, 8: return .text(String(decoding: data.rest().prefix { $0 != 0 }, as: UTF8.self))
        case 6, 7:
            guard depth < depthLimit else { throw ShortRead(offset: r.offset, needed: 0, available: 0) }
            var items: [SDPElement] = []
            while !data.isAtEnd { items.append(try parse(&data, depth: depth + 1)) }
            return .sequence(items)
        default: return .other
        }
    }

    var items: [SDPElement] { if case .sequence(let s) = self { return s } else { return [] } }

    /// Every UUID anywhere inside, and the first uint following each one (a protocol's parameter).
    func uuids() -> [[UInt8]] {
        switch self {
        case .uuid(let u): return [u]
        case .sequence(let s): return s.flatMap { $0.uuids() }
        default: return []
        }
    }
}

/// One service record as far as btlens needs it.
public struct SDPService: Sendable, Equatable {
    public var name: String?
    public var classes: [String]
    /// The service classes as UUIDs, for dissector bindings.
    public var classUUIDs: [BluetoothUUID] = []
    public var rfcommChannel: UInt8?
    public var isIAP2: Bool
}

public struct SDPInfo: Sendable {
    public var pdu: String
    public var transaction: UInt16
    public var services: [SDPService]
    /// What a request asks for, a search response's records, an error's code.
    public var fields: [(String, FieldValue)] = []
}

/// SDP over one L2CAP channel: PDUs named, attribute lists (joined across continuation) read for
/// service names, classes and RFCOMM channels.
struct SDPDecoder {
    /// An attribute list longer than this, even split by continuation, is not kept.
    static let listLimit = 65_536
    static let iap2Accessory: [UInt8] = [
        0, 0, 0, 0, 0xde, 0xca, 0xfa, 0xde, 0xde, 0xca, 0xde, 0xaf, 0xde, 0xca, 0xca, 0xff,
    ]
    static let iap2Device: [UInt8] = [
        0, 0, 0, 0, 0xde, 0xca, 0xfa, 0xde, 0xde, 0xca, 0xde, 0xaf, 0xde, 0xca, 0xca, 0xfe,
    ]

    static let pduNames: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Service Search Request", 0x03: "Service Search Response",
        0x04: "Service Attribute Request", 0x05: "Service Attribute Response",
        0x06: "Service Search Attribute Request", 0x07: "Service Search Attribute Response",
    ]

    private var pending: [UInt8] = []

    mutating func decode(_ payload: ArraySlice<UInt8>) -> (SDPInfo?, [Diagnostic]) {
        var r = ByteReader(payload)
        guard let id = try? r.u8(), let transaction = try? r.u16be(), let length = try? r.u16be(),
            let params = try? r.bytes(Int(length))
        else {
            return (
                nil,
                [
                    Diagnostic(
                        SDPDiagnostics.malformed, "SDP PDU of \(payload.count) bytes is shorter than its header says")
                ]
            )
        }
        var info = SDPInfo(
            pdu: Self.pduNames[id] ?? "Unknown (\(Hex.value(id, width: 2)))", transaction: transaction, services: [])
        guard id == 0x05 || id == 0x07 else {
            info.fields = Self.parameters(id, ByteReader(params))
            return (info, [])
        }
        var p = ByteReader(params)
        guard let count = try? p.u16be(), let list = try? p.bytes(Int(count)), let more = try? p.u8() else {
            return (info, [Diagnostic(SDPDiagnostics.malformed, "\(info.pdu): attribute list runs past the PDU")])
        }
        pending += list
        if pending.count > Self.listLimit { pending = [] }
        // A non-empty continuation state: more of the list follows in the next response.
        guard more == 0 else { return (info, []) }
        defer { pending = [] }
        var lr = ByteReader(pending)
        do {
            let root = try SDPElement.parse(&lr)
            let records = id == 0x07 ? root.items : [root]
            info.services = records.map(Self.service)
            return (info, [])
        } catch {
            return (
                info,
                [
                    Diagnostic(
                        SDPDiagnostics.malformed, "\(info.pdu): attribute list malformed at offset \(error.offset)")
                ]
            )
        }
    }

    /// Attribute list: (id, value) pairs. 0x0001 service classes, 0x0004 protocols, 0x0100 name.
    static func service(_ record: SDPElement) -> SDPService {
        var s = SDPService(name: nil, classes: [], rfcommChannel: nil, isIAP2: false)
        let items = record.items
        var i = 0
        while i + 1 < items.count {
            guard case .uint(let attribute) = items[i] else {
                i += 1
                continue
            }
            let value = items[i + 1]
            switch attribute {
            case 0x0001:
                let uuids = value.uuids()
                s.classes = uuids.map(Self.describe)
                s.classUUIDs = uuids.compactMap(Self.uuid)
                s.isIAP2 = uuids.contains(Self.iap2Accessory) || uuids.contains(Self.iap2Device)
            case 0x0004:
                for proto in value.items {
                    let parts = proto.items
                    // A server channel is 1 to 30 (RFCOMM §5.4): another value names none. Not its low
                    // byte, and not 130, whose DLCI (channel << 1) would wrap to channel 2's.
                    if case .uuid(let u)? = parts.first, u == [0x00, 0x03],
                        case .uint(let ch)? = parts.dropFirst().first,
                        let channel = UInt8(exactly: ch), (1...30).contains(channel)
                    {
                        s.rfcommChannel = channel
                    }
                }
            case 0x0100:
                if case .text(let t) = value { s.name = t }
            default:
                break
            }
            i += 2
        }
        return s
    }

    /// SDP UUIDs are big-endian, 2, 4 or 16 bytes.
    static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
        switch bytes.count {
        case 2: return .bit16(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        case 4: return .bit32(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16: return BluetoothUUID(littleEndian128: bytes.reversed())
        default: return nil
        }
    }

    /// A 32-bit UUID whose value fits 16 bits.
    private static func bit32(_ uuid: [UInt8]) -> UInt16? {
        if case .bit32(let v)? = Self.uuid(uuid) { return UInt16(exactly: v) }
        return nil
    }

    static func describe(_ uuid: [UInt8]) -> String {
        if uuid == iap2Accessory || uuid == iap2Device { return "iAP2 (\(Hex.string(uuid.suffix(2))))" }
        if uuid.count == 2 {
            let v = UInt16(uuid[0]) << 8 | UInt16(uuid[1])
            return SDPServiceClass.name(v) ?? Hex.value(v, width: 4)
        }
        // A 32- or 128-bit form of a 16-bit UUID (on the Base UUID, Core Vol 3 Part B §2.5.1).
        if uuid.count != 2, let short = Self.uuid(uuid)?.sig16 ?? bit32(uuid) {
            return describe([UInt8(short >> 8), UInt8(short & 0xff)])
        }
        return Self.uuid(uuid)?.description ?? Hex.string(uuid)
    }
}

public enum SDPDiagnostics {
    public static let malformed = DiagnosticKind(
        "sdp.malformed", .warning, "An SDP PDU or attribute list does not parse.")
    public static let all = [malformed]
}
