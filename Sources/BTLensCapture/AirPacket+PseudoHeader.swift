/// LINKTYPE 256's pseudo-header written from what `air` says, so a sniffer capture of any of the
/// three link types can be kept (`follow --write`, `convert`) with what btlens read of it
/// (docs/protocols/sniffer-captures.md).
extension AirPacket {
    /// RF channel (from the channel index), signal, noise 0, offenses 0, reference access address
    /// 0, flags: de-whitened, signal valid when known, CRC checked and its result, the data PDU's
    /// direction (PDU type 2 or 3), decrypted, MIC checked and its result, PHY.
    public var pseudoHeader: [UInt8] {
        var flags: UInt16 = 0x0001
        if signal != nil { flags |= 0x0002 }
        if crc != .unchecked { flags |= 0x0400 | (crc == .valid ? 0x0800 : 0) }
        if let sender { flags |= (sender == .central ? 2 : 3) << 7 }
        if mic != .unchecked { flags |= 0x1000 | (mic == .valid ? 0x2000 : 0) }
        if decrypted { flags |= 0x0008 }
        flags |= UInt16(phy & 0x3) << 14
        let rf = (0...39).first { Self.channelIndex(rf: UInt8($0)) == channel ?? 0 } ?? 0
        return [UInt8(rf), UInt8(bitPattern: signal ?? 0), 0, 0, 0, 0, 0, 0, UInt8(flags & 0xff), UInt8(flags >> 8)]
    }
}
