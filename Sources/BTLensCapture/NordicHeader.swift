import BTLensCore

/// LINKTYPE 272, the nRF Sniffer's header before an LE packet (docs/protocols/sniffer-captures.md):
/// a board id and a UART header of version 1, 2 or 3, or version 0's 0xBEEF marker in their place,
/// then the event packet header. 17 bytes in every version; its length fields are checked, not trusted.
struct NordicHeader {
    /// UART protocol version: 0 (legacy), 1, 2 or 3; later ones are read as 3.
    var version: UInt8 = 0
    /// The bytes the UART header says follow it (event header and packet).
    var payloadLength = 0
    /// Version 1's UART header length (6 when true); the event header's (10 when true).
    var uartHeaderLength = 6
    var eventHeaderLength = 10
    var packetID: UInt8 = 0
    var flags: UInt8 = 0
    var channel: UInt8 = 0
    var rssi: UInt8 = 0
    var eventCounter: UInt16 = 0

    static let size = 17
    /// The advertising access address (Core v5.4 Vol 6 Part B §2.1.2).
    static let advertisingAccessAddress: UInt32 = 0x8e89_bed6

    static func read(_ reader: inout ByteReader) throws(ShortRead) -> NordicHeader {
        var h = NordicHeader()
        if reader.peek(0) == 0xbe && reader.peek(1) == 0xef {
            try reader.skip(2)
            h.packetID = try reader.u8()
            try reader.skip(4)  // counter, 2 unused
            h.payloadLength = Int(try reader.u8())
        } else {
            try reader.skip(1)  // board id
            h.version = reader.peek(2) ?? 0
            if h.version == 1 {
                h.uartHeaderLength = Int(try reader.u8())
                h.payloadLength = Int(try reader.u8())
            } else {
                h.payloadLength = Int(try reader.u16le())
            }
            try reader.skip(3)  // version, counter
            h.packetID = try reader.u8()
            h.eventHeaderLength = Int(try reader.u8())
        }
        h.flags = try reader.u8()
        h.channel = try reader.u8()
        h.rssi = try reader.u8()
        h.eventCounter = try reader.u16le()
        try reader.skip(4)  // delta time (v0–2) or firmware timestamp (v3)
        return h
    }

    /// Whether the packet is a data channel PDU: by packet id from version 3 (6 data, 2
    /// advertising), before it by the access address that follows the header.
    func isData(accessAddress: UInt32?) -> Bool {
        version >= 3 ? packetID == 0x06 : accessAddress.map { $0 != Self.advertisingAccessAddress } ?? true
    }

    /// Flags: 0x01 CRC OK; for data PDUs 0x02 central to peripheral, 0x04 encrypted (MIC checked),
    /// 0x08 MIC OK; for advertising ones (v3) 0x06 the AUX type and 0x08 address resolved; 0x70 PHY.
    func air(data: Bool) -> AirPacket {
        var a = AirPacket()
        a.channel = channel
        a.signal = Int8(clamping: -Int(rssi))
        a.crc = flags & 0x01 != 0 ? .valid : .invalid
        if data {
            a.sender = flags & 0x02 != 0 ? .central : .peripheral
            if flags & 0x04 != 0 { a.mic = flags & 0x08 != 0 ? .valid : .invalid }
            a.decrypted = a.mic == .valid
            a.eventCounter = eventCounter
        }
        a.phy = flags >> 4 & 0x7
        return a
    }

    /// What the header says that its record contradicts, as "expected X, found Y" messages.
    /// `length` is the record's original length (a snap length may have cut what was captured).
    func mismatches(recordLength length: Int) -> [String] {
        var out: [String] = []
        let uart = version == 0 ? 8 : 7
        if length - uart != payloadLength {
            out.append(
                "nRF Sniffer header says \(payloadLength) bytes follow it, expected the record's \(length - uart)")
        }
        if version == 1 && uartHeaderLength != 6 {
            out.append("nRF Sniffer UART header length \(uartHeaderLength), expected 6: read as 6")
        }
        if version != 0 && eventHeaderLength != 10 {
            out.append("nRF Sniffer event header length \(eventHeaderLength), expected 10: read as 10")
        }
        if version > 3 { out.append("nRF Sniffer protocol version \(version), expected at most 3: read as 3") }
        return out
    }
}
