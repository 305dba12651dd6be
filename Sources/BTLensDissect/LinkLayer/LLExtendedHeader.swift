import BTLensCore

/// The Common Extended Advertising Payload Format's header (Core v5.4 Vol 6 Part B §2.3.4): its
/// length and AdvMode, then the fields its flags byte says are present, in that order.
enum LLExtendedHeader {
    static func fields(_ r: inout ByteReader, tx: UInt8, rx: UInt8) throws(ShortRead) -> [(String, FieldValue)] {
        let first = try r.u8()
        var h = ByteReader(try r.bytes(Int(first & 0x3f)))
        var f: [(String, FieldValue)] = [("adv_mode", .int(first >> 6))]
        guard h.remaining > 0 else { return f }
        let flags = try h.u8()
        if flags & 0x01 != 0 { f += try LLAdvertisingPDU.address("adv_address", tx, &h) }
        if flags & 0x02 != 0 { f += try LLAdvertisingPDU.address("target_address", rx, &h) }
        if flags & 0x04 != 0 { try h.skip(1) }  // CTEInfo
        if flags & 0x08 != 0 {
            let adi = try h.u16le()
            f += [("adi_did", .int(adi & 0x0fff)), ("adi_sid", .int(adi >> 12))]
        }
        if flags & 0x10 != 0 {
            let aux = try h.bytes(3)
            f += [("aux_channel", .int(aux[aux.startIndex] & 0x3f)), ("aux_phy", .int(aux[aux.startIndex + 2] >> 5))]
        }
        if flags & 0x20 != 0 { try h.skip(18) }  // SyncInfo
        if flags & 0x40 != 0 { f.append(("tx_power", .int(Int8(bitPattern: try h.u8())))) }
        return f
    }
}
