/// A Bluetooth device address. Stored as on the wire (little-endian), printed most significant first.
public struct BDAddr: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The six bytes in wire order (least significant first).
    public var wire: [UInt8]

    public init(wire: some Collection<UInt8>) { self.wire = Array(wire.prefix(6)) }

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

    public static func < (a: BDAddr, b: BDAddr) -> Bool {
        a.wire.reversed().lexicographicallyPrecedes(b.wire.reversed())
    }
}
