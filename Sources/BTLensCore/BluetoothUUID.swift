/// A Bluetooth UUID as carried in ATT: 16-bit, 32-bit or 128-bit (little-endian on the wire).
public enum BluetoothUUID: Sendable, Hashable, CustomStringConvertible {
    case bit16(UInt16)
    case bit32(UInt32)
    /// 128 bits, most significant first, in two words rather than an array: a UUID is copied into
    /// every event that names a characteristic, and an array's storage would be counted each time.
    case bit128(high: UInt64, low: UInt64)

    /// A 128-bit UUID from its 16 bytes, most significant first: fewer are padded with zeros in
    /// front, and of more only the last 16 count.
    public static func bit128(_ bytes: [UInt8]) -> BluetoothUUID {
        // Byte i of the 16, from the most significant; missing leading bytes are zeros.
        func byte(_ i: Int) -> UInt64 {
            let j = bytes.count - 16 + i
            return j >= 0 ? UInt64(bytes[j]) : 0
        }
        func word(_ first: Int) -> UInt64 { (first..<first + 8).reduce(UInt64(0)) { $0 << 8 | byte($1) } }
        return .bit128(high: word(0), low: word(8))
    }

    /// The 16 bytes of a 128-bit UUID, most significant first.
    static func bytes(high: UInt64, low: UInt64) -> [UInt8] {
        (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? high : low) >> (8 * (7 - i % 8))) }
    }

    /// Reads a UUID of `size` bytes (2, 4 or 16) in ATT's little-endian layout; nil for other sizes.
    public static func read(_ reader: inout ByteReader, size: Int) throws(ShortRead) -> BluetoothUUID? {
        switch size {
        case 2: return .bit16(try reader.u16le())
        case 4: return .bit32(try reader.u32le())
        case 16: return BluetoothUUID(littleEndian128: try reader.bytes(16))
        default: return nil
        }
    }

    /// Reduces a 128-bit UUID built on the Bluetooth base UUID to its 16/32-bit form.
    public init(littleEndian128 bytes: some Collection<UInt8>) {
        let big = Array(bytes.reversed())
        let base: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5f, 0x9b, 0x34, 0xfb]
        if big.count == 16, Array(big[4...]) == base {
            let value = UInt32(big[0]) << 24 | UInt32(big[1]) << 16 | UInt32(big[2]) << 8 | UInt32(big[3])
            self = value <= 0xffff ? .bit16(UInt16(value)) : .bit32(value)
        } else {
            self = .bit128(big)
        }
    }

    /// `2a19` for SIG UUIDs, `0000fff3-…` style for 128-bit ones.
    public var description: String {
        switch self {
        case .bit16(let v): return Hex.value(v, width: 4).dropFirst(2).description
        case .bit32(let v): return Hex.value(v, width: 8).dropFirst(2).description
        case .bit128(let high, let low):
            let chars = Array(Hex.string(Self.bytes(high: high, low: low)))
            func part(_ r: Range<Int>) -> String { String(chars[r]) }
            return [part(0..<8), part(8..<12), part(12..<16), part(16..<20), part(20..<32)].joined(separator: "-")
        }
    }

    public var sig16: UInt16? {
        if case .bit16(let v) = self { return v }
        return nil
    }
}
