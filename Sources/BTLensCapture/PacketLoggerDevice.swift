import BTLensCore

/// A PacketLogger config record (type 0xFD) that describes a known device: version 1, two bytes,
/// the name's length and its UTF-8, then the device's address, least significant byte first
/// (docs/protocols/capture-formats.md). Read for `--redact`, which must know the names to hide them.
public struct PacketLoggerDevice: Equatable, Sendable {
    /// The note category of config records.
    public static let category = "Config"

    public var name: String
    /// Nil when the record holds none (all zeros) or ends first.
    public var address: BDAddr?

    /// The device a config record's payload describes, or nil if it describes none.
    public init?(config payload: ArraySlice<UInt8>) {
        var r = ByteReader(payload)
        guard (try? r.u8()) == 1, (try? r.skip(2)) != nil, let length = try? r.u8(), length > 0,
            let bytes = try? r.bytes(Int(length)), let name = String(validating: bytes, as: UTF8.self),
            !name.unicodeScalars.contains(where: { $0.value < 0x20 })
        else { return nil }
        self.name = name
        let wire = (try? r.bytes(6)) ?? []
        address = wire.count == 6 && wire.contains { $0 != 0 } ? BDAddr(wire: wire) : nil
    }
}
