/// A Bluetooth device address. Stored as on the wire (little-endian), printed most significant first.
public struct BDAddr: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 48 bits, the first byte on the wire lowest: a word rather than an array, as an address
    /// is copied into every connection's and GATT database's key.
    public let value: UInt64

    /// The six bytes in wire order (least significant first).
    public var wire: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    public init(wire: some Collection<UInt8>) {
        value = wire.prefix(6).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    public init(_ reader: inout ByteReader) throws(ShortRead) {
        self.init(wire: try reader.bytes(6))
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public var description: String {
        wire.reversed().map { b in
            let s = String(b, radix: 16, uppercase: true)
            return b < 0x10 ? "0" + s : s
        }.joined(separator: ":")
    }

    public static func < (a: BDAddr, b: BDAddr) -> Bool { a.value < b.value }
}

extension BDAddr {
    /// `AA:BB:CC:DD:EE:FF` (or with `-`), most significant byte first as printed; nil otherwise.
    public init?(text: some StringProtocol) {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "-" }
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let b = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(b)
        }
        self.init(wire: (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }
}
