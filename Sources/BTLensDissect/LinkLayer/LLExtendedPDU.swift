import BTLensCore

/// What links an extended advertising PDU (type 7 on a secondary channel) to the next part of its
/// chain (Core v5.4 Vol 6 Part B §2.3.4): the ADI (§2.3.4.2), the AuxPtr (§2.3.4.5), and the
/// AdvData the chain's parts join.
struct LLExtendedPDU {
    /// The AuxPtr: the channel index, PHY and time after this packet's start that the next part is sent at.
    struct AuxPointer: Equatable {
        var channel: UInt8
        var phy: UInt8
        var offsetMicroseconds: Int64
        /// 30 or 300 µs: the next part may start up to one unit after the offset.
        var unitMicroseconds: Int64
    }

    var adi: UInt16?
    var aux: AuxPointer?
    var data: ArraySlice<UInt8>

    /// Nil unless `pdu` is a whole type 7 PDU (a malformed one is said by its decoding).
    init?(_ pdu: ArraySlice<UInt8>) {
        var header = ByteReader(pdu)
        guard let flags = try? header.u8(), flags & 0x0f == 7, let length = try? header.u8(),
            var r = (try? header.bytes(Int(length))).map({ ByteReader($0) }), let first = try? r.u8(),
            let extended = try? r.bytes(Int(first & 0x3f))
        else { return nil }
        data = r.rest()
        var h = ByteReader(extended)
        guard h.remaining > 0 else { return }
        guard let present = try? h.u8(), (try? Self.fields(present, &h, into: &self)) != nil else { return nil }
    }

    /// AdvA, TargetA, CTEInfo, then ADI and AuxPtr, in the order `present` lists them (§2.3.4).
    private static func fields(_ present: UInt8, _ h: inout ByteReader, into p: inout LLExtendedPDU) throws(ShortRead) {
        try h.skip((present & 0x01 != 0 ? 6 : 0) + (present & 0x02 != 0 ? 6 : 0) + (present & 0x04 != 0 ? 1 : 0))
        if present & 0x08 != 0 { p.adi = try h.u16le() }
        guard present & 0x10 != 0 else { return }
        let first = try h.u8()
        let rest = try h.u16le()
        let unit: Int64 = first & 0x80 != 0 ? 300 : 30
        p.aux = AuxPointer(
            channel: first & 0x3f, phy: UInt8(rest >> 13), offsetMicroseconds: Int64(rest & 0x1fff) * unit,
            unitMicroseconds: unit)
    }
}
