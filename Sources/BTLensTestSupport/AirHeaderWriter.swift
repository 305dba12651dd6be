import BTLensCapture

/// The headers sniffers write before an LE packet, from what a record's `air` says: LINKTYPE 256's
/// 10-byte pseudo-header and 272's nRF Sniffer board header, version 2 (docs/protocols/capture-formats.md).
enum AirHeaderWriter {
    /// RF channel (from the channel index), signal, noise, AA offenses, reference AA, flags: de-whitened, signal valid when
    /// known, CRC checked and valid or not, the data PDU's direction, MIC, PHY.
    static func pseudoHeader(_ a: AirPacket) -> [UInt8] { a.pseudoHeader }

    /// Board id 0, payload length (event header and packet), version 2, counter, EVENT_PACKET (6);
    /// then the event header: its length 10, flags, channel, RSSI negated, event counter, delta time 0.
    static func nordic(_ a: AirPacket, packetLength: Int, counter: UInt16) -> [UInt8] {
        let length = UInt16(clamping: 10 + packetLength)
        var flags: UInt8 = a.crc == .invalid ? 0 : 0x01
        if a.sender == .central { flags |= 0x02 }
        if a.mic != .unchecked { flags |= 0x04 | (a.mic == .valid ? 0x08 : 0) }
        flags |= (a.phy & 0x7) << 4
        let rssi = UInt8(clamping: -Int(a.signal ?? 0))
        let event = a.eventCounter ?? 0
        return [0, UInt8(length & 0xff), UInt8(length >> 8), 2, UInt8(counter & 0xff), UInt8(counter >> 8), 6]
            + [10, flags, a.channel ?? 0, rssi, UInt8(event & 0xff), UInt8(event >> 8), 0, 0, 0, 0]
    }
}
