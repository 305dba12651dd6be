/// Checksum algorithms vendors put at the end of their frames.
public enum ChecksumAlgorithm: Sendable, Equatable {
    /// Sum of the bytes, mod 256 (the A5 frame).
    case sum8
    /// The two's complement of the sum: all bytes and the checksum add up to 0 mod 256.
    case twosComplement8
    case xor8
    /// Sum of the bytes, mod 65536, in 2 bytes.
    case sum16
    /// A CRC of 8, 16 or 32 bits, named from the catalogue or by its parameters.
    case crc(CRC)

    /// The algorithms that are not CRCs, by name.
    public static let simple: [ChecksumAlgorithm] = [.sum8, .twosComplement8, .xor8, .sum16]

    /// `sum8`, `xor8`, a catalogue CRC (`crc-16/kermit`, `crc-32`, …, any case): nil for another name.
    public static func named(_ name: String) -> ChecksumAlgorithm? {
        if let s = simple.first(where: { $0.name == name }) { return s }
        return CRCCatalogue.named(name).map { .crc($0) }
    }

    /// As a definition names it: a CRC written by its parameters is `crc`.
    public var name: String {
        switch self {
        case .sum8: return "sum8"
        case .twosComplement8: return "twos-complement8"
        case .xor8: return "xor8"
        case .sum16: return "sum16"
        case .crc(let c): return c.name ?? "crc"
        }
    }

    /// Bytes the checksum occupies.
    public var width: Int {
        switch self {
        case .sum8, .twosComplement8, .xor8: return 1
        case .sum16: return 2
        case .crc(let c): return c.width / 8
        }
    }

    public func compute<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        switch self {
        case .sum8: return UInt32(bytes.reduce(UInt8(0)) { $0 &+ $1 })
        case .twosComplement8: return UInt32(UInt8(0) &- bytes.reduce(UInt8(0)) { $0 &+ $1 })
        case .xor8: return UInt32(bytes.reduce(UInt8(0)) { $0 ^ $1 })
        case .sum16: return UInt32(bytes.reduce(UInt16(0)) { $0 &+ UInt16($1) })
        case .crc(let c): return c.compute(bytes)
        }
    }
}
