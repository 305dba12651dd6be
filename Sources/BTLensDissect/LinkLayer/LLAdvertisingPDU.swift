import BTLensCore

/// An advertising physical channel PDU (Core v5.4 Vol 6 Part B §2.3): a 16-bit header (PDU type,
/// ChSel, TxAdd, RxAdd, length), then a payload whose layout the type gives.
struct LLAdvertisingPDU {
    var message: ProfileMessage
    /// For CONNECT_IND (AUX_CONNECT_REQ): the connection it creates.
    var connect: LLConnectParameters?

    static let names: [UInt8: String] = [
        0: "ADV_IND", 1: "ADV_DIRECT_IND", 2: "ADV_NONCONN_IND", 3: "SCAN_REQ", 4: "SCAN_RSP", 5: "CONNECT_IND",
        6: "ADV_SCAN_IND", 7: "ADV_EXT_IND", 8: "AUX_CONNECT_RSP",
    ]
    /// The same types on a secondary advertising channel (§2.3, Table 2.3). Type 7 there is also
    /// AUX_SCAN_RSP, AUX_CHAIN_IND or AUX_SYNC_IND, which only the chain leading to it tells apart.
    static let secondaryNames: [UInt8: String] = [3: "AUX_SCAN_REQ", 5: "AUX_CONNECT_REQ", 7: "AUX_ADV_IND"]

    /// Decodes `pdu` (header and payload, no access address or CRC), heard on a secondary
    /// advertising channel or not.
    static func decode(_ pdu: ArraySlice<UInt8>, secondary: Bool = false) throws(ShortRead) -> LLAdvertisingPDU {
        var header = ByteReader(pdu)
        let flags = try header.u8()
        let length = Int(try header.u8())
        var r = ByteReader(try header.bytes(length))
        let type = flags & 0x0f
        let tx = flags >> 6 & 1
        let rx = flags >> 7 & 1
        var f: [(String, FieldValue)] = [("pdu_type", .hex(Int64(type), digits: 2))]
        var connect: LLConnectParameters?
        switch type {
        case 0, 2, 6, 4:
            f += try address("adv_address", tx, &r)
            f += LLADStructures.fields(r.rest())
        case 1:
            f += try address("adv_address", tx, &r) + address("target_address", rx, &r)
        case 3:
            f += try address("scan_address", tx, &r) + address("adv_address", rx, &r)
        case 5:
            let initA = try BDAddr(&r)
            let advA = try BDAddr(&r)
            let c = try LLConnectParameters(
                &r, central: initA, centralType: tx, peripheral: advA, peripheralType: rx)
            f += [("init_address", .string(initA.description)), ("adv_address", .string(advA.description))]
            f += [("adv_address_type", .int(rx))] + c.fields
            connect = c
        case 7:
            f += try LLExtendedHeader.fields(&r, tx: tx, rx: rx)
            f += LLADStructures.fields(r.rest())
        default:
            f.append(("data", .bytes(Array(r.rest()))))
        }
        let name =
            (secondary ? secondaryNames[type] : nil) ?? names[type] ?? "Unknown (\(Hex.value(type, width: 2)))"
        return LLAdvertisingPDU(message: ProfileMessage(.ll, name, f), connect: connect)
    }

    static func address(_ key: String, _ random: UInt8, _ r: inout ByteReader) throws(ShortRead) -> [(
        String, FieldValue
    )] {
        let a = try BDAddr(&r)
        return [(key, .string(a.description + (random == 1 ? " (random)" : "")))]
    }
}
