import BTLensCore

/// What a sniffer said about an LE packet it heard over the air, beside the packet (LINKTYPE 256's
/// pseudo-header, 272's board header; nothing for 251). The record's payload is the packet from its
/// access address to its CRC.
public struct AirPacket: Sendable, Equatable {
    /// Whether the sniffer checked a CRC or MIC, and what it found.
    public enum Check: UInt8, Sendable { case unchecked, valid, invalid }

    /// The side that sent a data channel PDU, when the sniffer knew it.
    public enum Sender: UInt8, Sendable { case central, peripheral }

    /// RF channel 0–39 (256), or the channel index (272).
    public var channel: UInt8?
    /// Signal strength in dBm, when valid.
    public var signal: Int8?
    public var crc: Check = .unchecked
    public var mic: Check = .unchecked
    public var sender: Sender?
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded.
    public var phy: UInt8 = 0

    public init() {}

    /// LINKTYPE 256: RF channel, signal, noise, access-address offenses, reference AA (u32), flags
    /// (u16), all little-endian (docs/protocols/capture-formats.md).
    static func leWithPseudoHeader(_ reader: inout ByteReader) throws(ShortRead) -> AirPacket {
        var a = AirPacket()
        let channel = try reader.u8()
        let signal = Int8(bitPattern: try reader.u8())
        try reader.skip(6)
        let flags = try reader.u16le()
        a.channel = channel
        if flags & 0x0002 != 0 { a.signal = signal }
        if flags & 0x0400 != 0 { a.crc = flags & 0x0800 != 0 ? .valid : .invalid }
        let pduType = flags >> 7 & 0x7
        if pduType == 2 || pduType == 4 { a.sender = .central }
        if pduType == 3 || pduType == 5 { a.sender = .peripheral }
        // Bits 12–13 say MIC checked/valid except on an auxiliary advertising PDU, where they are its type.
        if pduType != 1, flags & 0x1000 != 0 { a.mic = flags & 0x2000 != 0 ? .valid : .invalid }
        a.phy = UInt8(flags >> 14)
        return a
    }

    /// LINKTYPE 272: the nRF Sniffer's board header, version 0 (0xBEEF marker), 1 or 2 and later,
    /// then its 10-byte event packet header (docs/protocols/capture-formats.md).
    static func nordic(_ reader: inout ByteReader) throws(ShortRead) -> AirPacket {
        let first = try reader.u16be()
        if first == 0xbeef {
            try reader.skip(6)  // packet id, counter, 2 unused, payload length
        } else {
            try reader.skip(5)  // (board id read) lengths, version, counter, packet id
            _ = try reader.u8()  // event packet header length
        }
        let flags = try reader.u8()
        var a = AirPacket()
        a.channel = try reader.u8()
        a.signal = Int8(clamping: -Int(try reader.u8()))
        try reader.skip(6)  // event counter, delta time
        a.crc = flags & 0x01 != 0 ? .valid : .invalid
        a.sender = flags & 0x02 != 0 ? .central : .peripheral
        if flags & 0x04 != 0 { a.mic = flags & 0x08 != 0 ? .valid : .invalid }
        a.phy = flags >> 4 & 0x7
        return a
    }
}
