import BTLensCore

/// A data physical channel PDU's header (Core v5.4 Vol 6 Part B §2.4): LLID, NESN, SN, MD, CP and
/// the payload's length, then the CTEInfo byte when CP is set, then the payload.
struct LLDataHeader {
    /// The header's first octet, which encryption authenticates (Vol 6 Part E §2.4).
    var first: UInt8
    /// 1: an L2CAP continuation fragment or an empty PDU; 2: an L2CAP start (or whole) PDU; 3: LL control.
    var llid: UInt8
    var nesn: UInt8
    var sn: UInt8
    var md: UInt8
    /// The length field: the payload's, with the MIC of an encrypted one.
    var length: Int
    var payload: ArraySlice<UInt8>

    /// Throws when the PDU is shorter than its header or its length field.
    init(_ pdu: ArraySlice<UInt8>) throws(ShortRead) {
        var r = ByteReader(pdu)
        first = try r.u8()
        length = Int(try r.u8())
        if first & 0x20 != 0 { try r.skip(1) }
        llid = first & 0x03
        nesn = first >> 2 & 1
        sn = first >> 3 & 1
        md = first >> 4 & 1
        payload = try r.bytes(length)
    }

    var fields: [(String, FieldValue)] {
        [
            ("llid", .int(llid)), ("nesn", .int(nesn)), ("sn", .int(sn)), ("md", .int(md)),
            ("length", .int(length)),
        ]
    }

    /// The PDU's event; one a key decrypted says so.
    func message(_ name: String, decrypted: Bool = false) -> ProfileMessage {
        ProfileMessage(.ll, name, decrypted ? fields + [("decrypted", .bool(true))] : fields)
    }
}
