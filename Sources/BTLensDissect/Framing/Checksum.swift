/// Checksum algorithms vendors put at the end of their frames.
public enum ChecksumAlgorithm: String, Sendable, CaseIterable {
    /// Sum of the bytes, mod 256 (the A5 frame).
    case sum8 = "sum8"
    /// The two's complement of the sum: all bytes and the checksum add up to 0 mod 256.
    case twosComplement8 = "twos-complement8"
    case xor8 = "xor8"
    /// CRC-8 (polynomial 0x07, initial 0x00, no reflection; CRC-8/SMBUS).
    case crc8 = "crc8"
    /// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection).
    case crc16CCITT = "crc16-ccitt"

    /// Bytes the checksum occupies.
    public var width: Int { self == .crc16CCITT ? 2 : 1 }

    public func compute<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        switch self {
        case .sum8: return UInt16(bytes.reduce(UInt8(0)) { $0 &+ $1 })
        case .twosComplement8: return UInt16(UInt8(0) &- bytes.reduce(UInt8(0)) { $0 &+ $1 })
        case .xor8: return UInt16(bytes.reduce(UInt8(0)) { $0 ^ $1 })
        case .crc8:
            var crc: UInt8 = 0
            for b in bytes {
                crc ^= b
                for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
            }
            return UInt16(crc)
        case .crc16CCITT:
            var crc: UInt16 = 0xffff
            for b in bytes {
                crc ^= UInt16(b) << 8
                for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
            }
            return crc
        }
    }
}
