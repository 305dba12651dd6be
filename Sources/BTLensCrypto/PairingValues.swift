/// A device address as the pairing functions take it (Vol 3 Part H §2.2.3, §2.2.7): a 1-bit type,
/// 0 public or 1 random (TxAdd/RxAdd on air), and a 48-bit address. Cannot hold anything else.
public struct PairingAddress: Hashable, Sendable {
    public let type: UInt8
    public let address: UInt64

    /// `address` below 2^48 and `type` 0 or 1, else nil.
    public init?(type: UInt8, address: UInt64) {
        guard type <= 1, address >> 48 == 0 else { return nil }
        self.type = type
        self.address = address
    }

    /// The 6 octets as they appear in a PDU (least significant first); nil unless 6 octets and type 0 or 1.
    public init?(type: UInt8, littleEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 6 else { return nil }
        self.init(type: type, address: bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The 56-bit A1/A2 of f5 and f6: the type octet above the address.
    var a56: UInt64 { UInt64(type) << 48 | address }
}

/// The 7 octets of a Pairing Request or Pairing Response PDU, code included (Vol 3 Part H §3.5.1, §3.5.2),
/// as the 56-bit preq/pres of c1: the code is the least significant octet.
public struct PairingFeatures: Hashable, Sendable {
    public let value: UInt64

    /// The PDU's 7 octets in the order they appear; nil unless exactly 7.
    public init?(pdu bytes: some Collection<UInt8>) {
        guard bytes.count == 7 else { return nil }
        value = bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The code octet: 0x01 for a Pairing Request, 0x02 for a Pairing Response.
    public var code: UInt8 { UInt8(truncatingIfNeeded: value) }
}

/// Octets most significant first, the order CMAC messages are concatenated in (Vol 3 Part H §2.2.5).
extension FixedWidthInteger {
    func bigEndianOctets(_ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) }
    }
}
