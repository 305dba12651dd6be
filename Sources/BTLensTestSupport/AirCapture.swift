import BTLensCapture
import BTLensCore

/// A sniffer capture built packet by packet, for the link layer's state: each packet at a time
/// given in microseconds from the first, with the channel, sender and connection event counter a
/// sniffer's header says (Core v5.4 Vol 6 Part B §2.3, §2.4). CRCs are zero and said valid.
public struct AirCapture {
    public static let start: Int64 = 1_700_000_000_000_000
    public var records: [CaptureRecord] = []

    public init() {}

    /// The capture in `link`'s form (pcap, microseconds).
    public func bytes(_ link: PcapFileWriter.LinkType = .nordic) -> [UInt8] {
        var w = PcapFileWriter(link: link, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        return w.bytes
    }

    /// An advertising channel PDU of `type` (TxAdd `tx`, RxAdd `rx`), on a primary channel or not.
    public mutating func advertising(
        _ type: UInt8, tx: UInt8 = 1, rx: UInt8 = 0, _ payload: [UInt8], channel: UInt8 = 37, at us: Int64
    ) {
        let header = [type | tx << 6 | rx << 7, UInt8(truncatingIfNeeded: payload.count)]
        add(SnifferCapture.le32(0x8e89_bed6) + header + payload, channel: channel, sender: nil, event: nil, at: us)
    }

    /// A CONNECT_IND from SnifferCapture's central to its peripheral, opening `aa` with a supervision
    /// timeout of `timeout` units of 10 ms.
    public mutating func connect(_ aa: UInt32, timeout: UInt16 = 72, at us: Int64) {
        var data = SnifferCapture.connectData(aa)
        (data[14], data[15]) = (UInt8(timeout & 0xff), UInt8(timeout >> 8))
        advertising(5, tx: 0, rx: 1, SnifferCapture.central.wire + SnifferCapture.peripheral.wire + data, at: us)
    }

    /// A data channel PDU on `aa`.
    public mutating func data(
        _ aa: UInt32, _ sender: AirPacket.Sender, llid: UInt8, sn: UInt8, nesn: UInt8, _ payload: [UInt8] = [],
        event: UInt16? = nil, at us: Int64
    ) {
        let header = [llid | nesn << 2 | sn << 3, UInt8(truncatingIfNeeded: payload.count)]
        add(SnifferCapture.le32(aa) + header + payload, channel: 12, sender: sender, event: event, at: us)
    }

    private mutating func add(
        _ packet: [UInt8], channel: UInt8, sender: AirPacket.Sender?, event: UInt16?, at us: Int64
    ) {
        var r = CaptureRecord(
            number: records.count + 1, fileOffset: 0, timestamp: Timestamp(microseconds: Self.start + us),
            kind: .linkLayer, direction: nil, payload: (packet + [0, 0, 0])[...], originalLength: packet.count + 3)
        var air = AirPacket()
        (air.channel, air.signal, air.sender, air.crc, air.eventCounter) = (channel, -60, sender, .valid, event)
        r.air = air
        records.append(r)
    }
}
