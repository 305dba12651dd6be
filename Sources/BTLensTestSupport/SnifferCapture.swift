import BTLensCapture
import BTLensCore

/// An over-the-air LE capture as a sniffer writes it (Core v5.4 Vol 6 Part B): a peripheral
/// advertises and is scanned, a phone connects, exchanges LL versions, an ATT MTU exchange (the
/// response in two fragments) and a read sent twice (a retransmission), a packet heard with a bad
/// CRC, and a terminate; then a second connection starts encryption, after which its PDUs are
/// encrypted. CRCs are zero: the 256 and 272 headers say whether each was valid.
public enum SnifferCapture {
    public static let central = BDAddr(wire: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
    public static let peripheral = BDAddr(wire: [0x55, 0x44, 0x33, 0x22, 0x11, 0xc0])
    public static let firstAccessAddress: UInt32 = 0x5065_3a9b
    public static let secondAccessAddress: UInt32 = 0x71a4_c2d8

    /// The capture in `link`'s form (pcap, microseconds).
    public static func bytes(_ link: PcapFileWriter.LinkType = .leWithPseudoHeader) -> [UInt8] {
        var w = PcapFileWriter(link: link, layout: .pcap(nanoseconds: false))
        for r in records() { w.add(r) }
        return w.bytes
    }

    public static func records() -> [CaptureRecord] {
        var s = Script()
        advertising(&s)
        firstConnection(&s)
        s.adv(5, tx: 0, rx: 1, central.wire + peripheral.wire + connectData(secondAccessAddress))
        secondConnection(&s)
        return s.records
    }

    /// ADV_IND with flags, a name and Battery Service; SCAN_REQ, SCAN_RSP with a company; CONNECT_IND.
    private static func advertising(_ s: inout Script) {
        let name = Array("Aurora".utf8)
        let data: [UInt8] = [2, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name + [3, 0x03, 0x0f, 0x18]
        s.adv(0, tx: 1, rx: 0, peripheral.wire + data)
        s.adv(3, tx: 0, rx: 1, central.wire + peripheral.wire)
        s.adv(4, tx: 1, rx: 0, peripheral.wire + [5, 0xff, 0x4c, 0x00, 0x01, 0x02])
        s.adv(5, tx: 0, rx: 1, central.wire + peripheral.wire + connectData(firstAccessAddress))
    }

    /// LLData: AA, CRCInit 0x123456, WinSize 2, WinOffset 0, Interval 24 (30 ms), Latency 0,
    /// Timeout 72 (720 ms), all 37 data channels, Hop 7, SCA 0 (§2.3.3.1).
    static func connectData(_ aa: UInt32) -> [UInt8] {
        le32(aa) + [0x56, 0x34, 0x12, 2, 0, 0, 24, 0, 0, 0, 72, 0, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x07]
    }

    private static func firstConnection(_ s: inout Script) {
        let aa = firstAccessAddress
        let version: [UInt8] = [0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12]
        s.data(aa, .central, llid: 3, sn: 0, nesn: 0, version)
        s.data(aa, .peripheral, llid: 3, sn: 0, nesn: 1, version)
        s.data(aa, .central, llid: 2, sn: 1, nesn: 1, [3, 0, 4, 0, 0x02, 0xf7, 0x00])  // ATT MTU Request 247
        s.data(aa, .peripheral, llid: 2, sn: 1, nesn: 0, [3, 0, 4, 0, 0x03])  // its response, started
        s.data(aa, .central, llid: 1, sn: 0, nesn: 0, [])
        s.data(aa, .peripheral, llid: 1, sn: 0, nesn: 1, [0x40, 0x00])  // … and ended: MTU 64
        let read: [UInt8] = [3, 0, 4, 0, 0x0a, 0x03, 0x00]  // ATT Read Request, handle 0x0003
        s.data(aa, .central, llid: 2, sn: 1, nesn: 1, read)
        s.data(aa, .central, llid: 2, sn: 1, nesn: 1, read)  // not acknowledged: sent again
        s.data(aa, .peripheral, llid: 2, sn: 1, nesn: 0, [3, 0, 4, 0, 0x0b, 0x68, 0x69])
        s.data(aa, .central, llid: 2, sn: 0, nesn: 0, [0xde, 0xad], crc: .invalid)
        s.data(aa, .central, llid: 3, sn: 0, nesn: 0, [0x02, 0x13])  // LL_TERMINATE_IND, remote user
    }

    private static func secondConnection(_ s: inout Script) {
        let aa = secondAccessAddress
        let request: [UInt8] = [0x03] + Array(repeating: 0x11, count: 10) + Array(repeating: 0x22, count: 12)
        s.data(aa, .central, llid: 3, sn: 0, nesn: 0, request)  // LL_ENC_REQ
        s.data(aa, .peripheral, llid: 3, sn: 0, nesn: 1, [0x04] + Array(repeating: 0x33, count: 12))
        s.data(aa, .central, llid: 1, sn: 1, nesn: 1, [])
        s.data(aa, .peripheral, llid: 3, sn: 1, nesn: 0, [0x05])  // LL_START_ENC_REQ
        s.data(aa, .central, llid: 3, sn: 0, nesn: 0, [0x9a, 0x01, 0x02, 0x03, 0x04])  // encrypted
        s.data(aa, .peripheral, llid: 3, sn: 0, nesn: 1, [0x5c, 0x05, 0x06, 0x07, 0x08])
        s.data(aa, .central, llid: 2, sn: 1, nesn: 1, Array(repeating: 0xe7, count: 11))
    }

    /// Records 1.25 ms apart, each a packet from its access address to its (zero) CRC.
    struct Script {
        var records: [CaptureRecord] = []

        mutating func adv(_ type: UInt8, tx: UInt8, rx: UInt8, _ payload: [UInt8]) {
            let header = [type | tx << 6 | rx << 7, UInt8(payload.count)]
            add(le32(0x8e89_bed6) + header + payload, channel: 37, sender: nil, crc: .valid)
        }

        mutating func data(
            _ aa: UInt32, _ sender: AirPacket.Sender, llid: UInt8, sn: UInt8, nesn: UInt8, _ payload: [UInt8],
            crc: AirPacket.Check = .valid
        ) {
            let header = [llid | nesn << 2 | sn << 3, UInt8(payload.count)]
            add(le32(aa) + header + payload, channel: 12, sender: sender, crc: crc)
        }

        private mutating func add(_ packet: [UInt8], channel: UInt8, sender: AirPacket.Sender?, crc: AirPacket.Check) {
            let n = records.count + 1
            var r = CaptureRecord(
                number: n, fileOffset: 0, timestamp: Timestamp(microseconds: 1_700_000_000_000_000 + Int64(n) * 1250),
                kind: .linkLayer, direction: nil, payload: (packet + [0, 0, 0])[...], originalLength: packet.count + 3)
            var air = AirPacket()
            (air.channel, air.signal, air.sender, air.crc) = (channel, -60, sender, crc)
            r.air = air
            records.append(r)
        }
    }

    public static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
