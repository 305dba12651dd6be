import BTLensCore

/// An LL control PDU (Core v5.4 Vol 6 Part B §2.4.2): an opcode, then CtrData whose layout the
/// opcode gives. The parameters of the procedures a connection's life depends on are decoded; the
/// others are shown by name with their bytes.
enum LLControlPDU {
    static let names: [UInt8: String] = [
        0x00: "LL_CONNECTION_UPDATE_IND", 0x01: "LL_CHANNEL_MAP_IND", 0x02: "LL_TERMINATE_IND",
        0x03: "LL_ENC_REQ", 0x04: "LL_ENC_RSP", 0x05: "LL_START_ENC_REQ", 0x06: "LL_START_ENC_RSP",
        0x07: "LL_UNKNOWN_RSP", 0x08: "LL_FEATURE_REQ", 0x09: "LL_FEATURE_RSP", 0x0a: "LL_PAUSE_ENC_REQ",
        0x0b: "LL_PAUSE_ENC_RSP", 0x0c: "LL_VERSION_IND", 0x0d: "LL_REJECT_IND",
        0x0e: "LL_PERIPHERAL_FEATURE_REQ", 0x0f: "LL_CONNECTION_PARAM_REQ", 0x10: "LL_CONNECTION_PARAM_RSP",
        0x11: "LL_REJECT_EXT_IND", 0x12: "LL_PING_REQ", 0x13: "LL_PING_RSP", 0x14: "LL_LENGTH_REQ",
        0x15: "LL_LENGTH_RSP", 0x16: "LL_PHY_REQ", 0x17: "LL_PHY_RSP", 0x18: "LL_PHY_UPDATE_IND",
        0x19: "LL_MIN_USED_CHANNELS_IND", 0x1a: "LL_CTE_REQ", 0x1b: "LL_CTE_RSP", 0x1c: "LL_PERIODIC_SYNC_IND",
        0x1d: "LL_CLOCK_ACCURACY_REQ", 0x1e: "LL_CLOCK_ACCURACY_RSP", 0x1f: "LL_CIS_REQ", 0x20: "LL_CIS_RSP",
        0x21: "LL_CIS_IND", 0x22: "LL_CIS_TERMINATE_IND", 0x23: "LL_POWER_CONTROL_REQ",
        0x24: "LL_POWER_CONTROL_RSP", 0x25: "LL_POWER_CHANGE_IND", 0x26: "LL_SUBRATE_REQ", 0x27: "LL_SUBRATE_IND",
        0x28: "LL_CHANNEL_REPORTING_IND", 0x29: "LL_CHANNEL_STATUS_IND",
    ]

    static let terminate: UInt8 = 0x02
    static let connectionUpdate: UInt8 = 0x00
    static let encryptionRequest: UInt8 = 0x03
    static let encryptionResponse: UInt8 = 0x04
    static let startEncryptionRequest: UInt8 = 0x05
    static let pauseEncryptionResponse: UInt8 = 0x0b
    static let reject: UInt8 = 0x0d
    static let rejectExtended: UInt8 = 0x11

    /// The PDU's name and fields; throws when CtrData is shorter than its opcode's parameters.
    static func decode(_ payload: ArraySlice<UInt8>) throws(ShortRead) -> (opcode: UInt8, ProfileMessage) {
        var r = ByteReader(payload)
        let opcode = try r.u8()
        let name = names[opcode] ?? "Unknown (\(Hex.value(opcode, width: 2)))"
        let fields = [("opcode", FieldValue.hex(Int64(opcode), digits: 2))] + (try parameters(opcode, &r))
        return (opcode, ProfileMessage(.ll, name, fields))
    }

    private static func parameters(_ opcode: UInt8, _ r: inout ByteReader) throws(ShortRead) -> [(
        String, FieldValue
    )] {
        switch opcode {
        case 0x00:
            let size = try r.u8()
            let offset = try r.u16le()
            let interval = try r.u16le()
            let latency = try r.u16le()
            let timeout = try r.u16le()
            return [
                ("win_size", .int(size)), ("win_offset", .int(offset)),
                ("interval_ms", .decimal(Int64(interval) * 125, scale: 2)), ("latency", .int(latency)),
                ("timeout_ms", .int(Int(timeout) * 10)), ("instant", .int(try r.u16le())),
            ]
        case 0x01: return [("channel_map", .bytes(Array(try r.bytes(5)))), ("instant", .int(try r.u16le()))]
        case 0x02, 0x0d:
            let reason = HCIErrorCode(rawValue: try r.u8())
            return [("reason", .hex(Int64(reason.rawValue), digits: 2)), ("reason_name", .string(reason.name))]
        case 0x03:
            return [
                ("rand", .bytes(Array(try r.bytes(8)))), ("ediv", .hex(Int64(try r.u16le()), digits: 4)),
                ("skd", .bytes(Array(try r.bytes(8)))), ("iv", .bytes(Array(try r.bytes(4)))),
            ]
        case 0x04: return [("skd", .bytes(Array(try r.bytes(8)))), ("iv", .bytes(Array(try r.bytes(4))))]
        case 0x07: return [("unknown_type", .hex(Int64(try r.u8()), digits: 2))]
        case 0x08, 0x09, 0x0e: return [("features", .bytes(Array(try r.bytes(8))))]
        case 0x0c:
            return [
                ("version", .int(try r.u8())), ("company", .hex(Int64(try r.u16le()), digits: 4)),
                ("subversion", .hex(Int64(try r.u16le()), digits: 4)),
            ]
        case 0x11:
            let opcode = try r.u8()
            let reason = HCIErrorCode(rawValue: try r.u8())
            return [
                ("reject_opcode", .hex(Int64(opcode), digits: 2)), ("reason", .hex(Int64(reason.rawValue), digits: 2)),
                ("reason_name", .string(reason.name)),
            ]
        case 0x14, 0x15:
            return [
                ("max_rx_octets", .int(try r.u16le())), ("max_rx_time", .int(try r.u16le())),
                ("max_tx_octets", .int(try r.u16le())), ("max_tx_time", .int(try r.u16le())),
            ]
        case 0x16, 0x17:
            return [("tx_phys", .hex(Int64(try r.u8()), digits: 2)), ("rx_phys", .hex(Int64(try r.u8()), digits: 2))]
        case 0x18:
            return [
                ("phy_c_to_p", .hex(Int64(try r.u8()), digits: 2)), ("phy_p_to_c", .hex(Int64(try r.u8()), digits: 2)),
                ("instant", .int(try r.u16le())),
            ]
        case 0x05, 0x06, 0x0a, 0x0b, 0x12, 0x13: return []
        default: return r.remaining > 0 ? [("data", .bytes(Array(r.rest())))] : []
        }
    }
}
