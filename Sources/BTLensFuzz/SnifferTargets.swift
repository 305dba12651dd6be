import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensTestSupport

/// Over-the-air LE captures: the input's first byte picks the link type and file format, each part
/// becomes one packet a sniffer heard, and the whole pipeline decodes the capture. A part's tag:
/// bits 0–1 the packet (0 advertising, 1 and 2 data PDUs of two connections, 3 the record's bytes
/// as they are, header included, so headers can lie); bit 2 sent by the central; bit 3 CRC bad;
/// bit 4 MIC checked, bit 5 LE 2M; bits 6–7 the time step (0 and 3 1.25 ms, 1 none, 2 two seconds back).
enum SnifferTargets {
    static let forms: [(PcapFileWriter.LinkType, PcapFileWriter.Layout)] = [
        (.leLinkLayer, .pcap(nanoseconds: false)), (.leWithPseudoHeader, .pcap(nanoseconds: false)),
        (.nordic, .pcap(nanoseconds: false)), (.leLinkLayer, .pcapng(tsresol: 6)),
        (.leWithPseudoHeader, .pcapng(tsresol: 9)), (.nordic, .pcapng(tsresol: nil)),
    ]
    static let accessAddresses = [
        0x8e89_bed6, SnifferCapture.firstAccessAddress, SnifferCapture.secondAccessAddress,
    ]

    static let all = [
        FuzzTarget(
            name: "sniffer",
            summary: "parts as LE packets a sniffer heard (251, 256, 272; pcap, pcapng), or as whole records",
            seeds: { SnifferSeeds.all }, capture: { (capture($0), []) })
    ]

    /// The capture an input describes.
    static func capture(_ bytes: [UInt8]) -> [UInt8] {
        let (link, layout) = forms[Int(bytes.first ?? 0) % forms.count]
        var w = PcapFileWriter(link: link, layout: layout)
        var time: Int64 = 1_700_000_000_000_000
        var number = 0
        for (tag, body) in Parts(Array(bytes.dropFirst())) {
            number += 1
            switch tag >> 6 {
            case 1: break
            case 2: time -= 2_000_000
            default: time += 1250
            }
            if tag & 3 == 3 {
                w.add(packet: body, microseconds: time)
                continue
            }
            w.add(record(tag, body, number: number, time: time))
        }
        return w.bytes
    }

    /// A packet from its access address to a zero CRC, with what a sniffer's header says of it.
    static func record(_ tag: UInt8, _ pdu: [UInt8], number: Int, time: Int64) -> CaptureRecord {
        let kind = Int(tag & 3)
        let packet = SnifferCapture.le32(accessAddresses[kind]) + pdu + [0, 0, 0]
        var r = CaptureRecord(
            number: number, fileOffset: 0, timestamp: Timestamp(microseconds: time), kind: .linkLayer,
            direction: nil, payload: packet[...], originalLength: packet.count)
        var air = AirPacket()
        air.channel = kind == 0 ? 37 : UInt8(number % 37)
        air.signal = -60
        air.crc = tag & 8 != 0 ? .invalid : .valid
        if kind != 0 { air.sender = tag & 4 != 0 ? .central : .peripheral }
        if tag & 0x10 != 0 { air.mic = .valid }
        air.phy = tag >> 5 & 1
        r.air = air
        return r
    }

    /// The tag of a part that `record` turns back into `r` (its time step 1.25 ms).
    static func tag(of r: CaptureRecord) -> (UInt8, [UInt8]) {
        let aa = r.payload.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let kind = UInt8(accessAddresses.firstIndex(of: aa) ?? 1)
        let air = r.air ?? AirPacket()
        var tag = kind
        if air.sender == .central { tag |= 4 }
        if air.crc == .invalid { tag |= 8 }
        return (tag, Array(r.payload.dropFirst(4).dropLast(3)))
    }
}
