import BTLensCore

/// What a sniffer said about an LE packet it heard over the air, beside the packet (LINKTYPE 256's
/// pseudo-header, 272's board header; nothing for 251). The record's payload is the packet from its
/// access address to its CRC.
public struct AirPacket: Sendable, Equatable {
    /// Whether the sniffer checked a CRC or MIC, and what it found.
    public enum Check: UInt8, Sendable { case unchecked, valid, invalid }

    /// The side that sent a data channel PDU, when the sniffer knew it.
    public enum Sender: UInt8, Sendable { case central, peripheral }

    /// The channel index (Core v5.4 Vol 6 Part B §1.4.1): 0–36 data and secondary advertising
    /// channels, 37–39 the primary advertising ones. 272 writes it; 256's RF channel is mapped to it.
    public var channel: UInt8?
    /// Signal strength in dBm, when valid.
    public var signal: Int8?
    public var crc: Check = .unchecked
    public var mic: Check = .unchecked
    /// The sniffer decrypted the PDU itself: its payload is plaintext, the MIC still after it
    /// (256's "decrypted" flag; 272's "encrypted" with "MIC OK").
    public var decrypted = false
    public var sender: Sender?
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded.
    public var phy: UInt8 = 0
    /// The connection event counter of a data channel PDU, when the sniffer gave it (272).
    public var eventCounter: UInt16?

    public init() {}

    /// LINKTYPE 256: RF channel, signal, noise, access-address offenses, reference AA (u32), flags
    /// (u16), all little-endian (docs/protocols/capture-formats.md).
    static func leWithPseudoHeader(_ reader: inout ByteReader) throws(ShortRead) -> AirPacket {
        var a = AirPacket()
        let channel = try reader.u8()
        let signal = Int8(bitPattern: try reader.u8())
        try reader.skip(6)
        let flags = try reader.u16le()
        a.channel = channelIndex(rf: channel)
        if flags & 0x0002 != 0 { a.signal = signal }
        if flags & 0x0400 != 0 { a.crc = flags & 0x0800 != 0 ? .valid : .invalid }
        let pduType = flags >> 7 & 0x7
        if pduType == 2 || pduType == 4 { a.sender = .central }
        if pduType == 3 || pduType == 5 { a.sender = .peripheral }
        // Bits 12–13 say MIC checked/valid except on an auxiliary advertising PDU, where they are its type.
        if pduType != 1, flags & 0x1000 != 0 { a.mic = flags & 0x2000 != 0 ? .valid : .invalid }
        a.decrypted = flags & 0x0008 != 0
        a.phy = UInt8(flags >> 14)
        return a
    }

    /// The channel index of RF channel `rf` (2402 + 2·rf MHz): RF 0, 12 and 39 are the advertising
    /// channels 37, 38 and 39, the others the data channels in order (§1.4.1, Table 1.1).
    public static func channelIndex(rf: UInt8) -> UInt8 {
        switch rf {
        case 0: return 37
        case 12: return 38
        case 1...11: return rf - 1
        case 13...38: return rf - 2
        default: return rf
        }
    }
}
