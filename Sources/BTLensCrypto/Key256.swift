import BTLensCore

/// A 256-bit value of Secure Connections: a P-256 coordinate or a DHKey (Vol 3 Part H §2.3.5.6.1).
/// Same byte order convention as `Key128`: `high`/`low` are the spec's number, `littleEndian` the PDU's.
public struct Key256: Hashable, Sendable {
    public var high: UInt128
    public var low: UInt128

    public init(high: UInt128, low: UInt128) {
        self.high = high
        self.low = low
    }

    /// The 32 octets as they appear in a PDU (a Pairing Public Key coordinate); nil unless exactly 32.
    public init?(littleEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.init(bigEndian: bytes.reversed())
    }

    /// The 32 octets most significant first; nil unless exactly 32.
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32, let high = Key128(bigEndian: bytes.prefix(16)),
            let low = Key128(bigEndian: bytes.dropFirst(16))
        else { return nil }
        self.init(high: high.value, low: low.value)
    }

    /// 64 hex digits, most significant first (spaces, underscores, 0x allowed); nil for anything else.
    public init?(hex: String) {
        guard let bytes = Hex.bytes(Key128.digits(hex)) else { return nil }
        self.init(bigEndian: bytes)
    }

    public var bigEndian: [UInt8] {
        Key128(high).bigEndian + Key128(low).bigEndian
    }

    public var littleEndian: [UInt8] {
        bigEndian.reversed()
    }

    public var hex: String {
        Hex.string(bigEndian)
    }
}
