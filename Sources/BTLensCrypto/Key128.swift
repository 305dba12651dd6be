import BTLensCore

/// A 128-bit key or block: a value that cannot hold any other size.
///
/// Byte order, once for the whole target: `value` is the number as the Core specification prints it
/// (Vol 3 Part H §2.2: most significant octet first, the octet order AES uses), and `littleEndian` is how
/// the same value travels on air and in SMP and LL PDUs (least significant octet first).
public struct Key128: Hashable, Sendable {
    /// The value as the specification writes it: 0x4C68…01BF is `Key128(0x4C68_…_01BF)`.
    public var value: UInt128

    public init(_ value: UInt128) {
        self.value = value
    }

    /// The 16 octets as they appear in a PDU; nil unless exactly 16.
    public init?(littleEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        value = bytes.reversed().reduce(0) { $0 << 8 | UInt128($1) }
    }

    /// The 16 octets most significant first (the spec's and AES's order); nil unless exactly 16.
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        value = bytes.reduce(0) { $0 << 8 | UInt128($1) }
    }

    /// 32 hex digits, most significant first, as the spec, crackle and Wireshark print a key;
    /// spaces, underscores and a leading 0x are allowed. Nil for anything else.
    public init?(hex: String) {
        guard let bytes = Hex.bytes(Self.digits(hex)), let key = Key128(bigEndian: bytes) else { return nil }
        self = key
    }

    /// The hex digits of a key as people write it: underscores between groups, a leading 0x.
    static func digits(_ text: String) -> String {
        let kept = text.filter { $0 != "_" }
        return kept.hasPrefix("0x") || kept.hasPrefix("0X") ? String(kept.dropFirst(2)) : kept
    }

    public var littleEndian: [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    public var bigEndian: [UInt8] {
        littleEndian.reversed()
    }

    /// 32 lowercase hex digits, most significant first.
    public var hex: String {
        Hex.string(bigEndian)
    }

    static func ^ (lhs: Key128, rhs: Key128) -> Key128 {
        Key128(lhs.value ^ rhs.value)
    }
}

extension Key128: CustomStringConvertible {
    public var description: String { hex }
}
