import BTLensCore

/// A controller's own debug output that it sends to the host as ACL data, marked by a reserved
/// first header word (handle and flags together) that is no connection's. Linux hands these
/// packets to its diagnostic channel, not to L2CAP; btlens shows them as one record each and
/// decodes nothing but what the vendor's public sources lay out (docs/protocols/vendor-hci.md,
/// "Controller debug records").
public struct ControllerDebug: Sendable {
    public enum Vendor: String, Sendable {
        case qualcomm = "Qualcomm"
        case mediatek = "MediaTek"
    }

    public enum Kind: String, Sendable {
        case log = "debug log"
        case memoryDump = "memory dump"
    }

    public var vendor: Vendor
    public var kind: Kind
    /// The ACL header's first word, as received.
    public var header: UInt16
    /// The data's size: the bytes after the 4-byte ACL header.
    public var length: Int
    /// A Qualcomm memory dump packet's sequence number (0 first, 0xFFFF last).
    public var sequence: UInt16?
    /// The whole dump's size, which the first packet of a Qualcomm memory dump gives.
    public var dumpSize: UInt32?
    /// The data's first bytes, at most `--limit undecoded-bytes` of them.
    public var bytes: [UInt8]
    public var bytesCut: Int { length - bytes.count }

    /// The debug channel a received packet's first header word marks, or nil.
    public static func channel(_ header: UInt16) -> (Vendor, Kind)? {
        switch header {
        case 0x2edc: return (.qualcomm, .log)
        case 0x2edd: return (.qualcomm, .memoryDump)
        case 0x05fe, 0x05ff: return (.mediatek, .log)
        case 0xfc6f: return (.mediatek, .memoryDump)
        default: return nil
        }
    }

    /// `data` (after the ACL header) from the channel `header` marks; nil for another header word.
    public init?(header: UInt16, _ data: ArraySlice<UInt8>, keep: Int) {
        guard let (vendor, kind) = Self.channel(header) else { return nil }
        self.vendor = vendor
        self.kind = kind
        self.header = header
        length = data.count
        bytes = Array(data.prefix(keep))
        if vendor == .qualcomm, kind == .memoryDump { readDumpHeader(data) }
    }

    /// A Qualcomm memory dump packet holds a vendor event: code 0xFF, its length, class 0x01,
    /// message type 0x08, the sequence number (16 bits, little-endian), a reserved byte; the
    /// first packet then gives the dump's size (32 bits). Data in another shape is left as bytes.
    private mutating func readDumpHeader(_ data: ArraySlice<UInt8>) {
        var r = ByteReader(data)
        do {
            guard try r.u8() == 0xff else { return }
            try r.skip(1)
            guard try r.u8() == 0x01, try r.u8() == 0x08 else { return }
            let sequence = try r.u16le()
            try r.skip(1)
            self.sequence = sequence
            if sequence == 0 { dumpSize = try r.u32le() }
        } catch {
            // Cut short: what was read stays.
        }
    }
}
