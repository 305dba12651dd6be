import BTLensCore

/// CONNECT_IND's LLData (Core v5.4 Vol 6 Part B §2.3.3.1): the access address and the timing of the
/// connection it creates.
struct LLConnectParameters {
    var accessAddress: UInt32
    var central: BDAddr
    var centralType: UInt8
    var peripheral: BDAddr
    var peripheralType: UInt8
    /// The supervision timeout, in units of 10 ms.
    var timeout: UInt16
    var fields: [(String, FieldValue)]

    init(
        _ r: inout ByteReader, central: BDAddr, centralType: UInt8, peripheral: BDAddr, peripheralType: UInt8
    ) throws(ShortRead) {
        accessAddress = try r.u32le()
        self.central = central
        self.centralType = centralType
        self.peripheral = peripheral
        self.peripheralType = peripheralType
        let crcInit = try r.bytes(3)
        let winSize = try r.u8()
        let winOffset = try r.u16le()
        let interval = try r.u16le()
        let latency = try r.u16le()
        timeout = try r.u16le()
        let map = try r.bytes(5)
        let hopSCA = try r.u8()
        fields = [
            ("access_address", .hex(Int64(accessAddress), digits: 8)),
            ("crc_init", .hex(Int64(crcInit.reversed().reduce(0) { $0 << 8 | Int($1) }), digits: 6)),
            ("win_size", .int(winSize)), ("win_offset", .int(winOffset)),
            // Units of 1.25 ms and 10 ms (§2.3.3.1).
            ("interval_ms", .decimal(Int64(interval) * 125, scale: 2)), ("latency", .int(latency)),
            ("timeout_ms", .int(Int(timeout) * 10)), ("channel_map", .bytes(Array(map))),
            ("hop", .int(hopSCA & 0x1f)), ("sca", .int(hopSCA >> 5)),
        ]
    }
}
