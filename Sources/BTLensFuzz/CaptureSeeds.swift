import BTLensCapture
import BTLensCore
import BTLensTestSupport

/// The capture targets' seeds: every form of every format a user has, written by code.
enum CaptureSeeds {
    /// Datalinks 1002 (most samples), 1001 (H1, and H4 mislabelled) and 2001 (btmon).
    static var btsnoop: [[UInt8]] { SampleCaptures.all.map(\.session.bytes) }

    static var pklg: [[UInt8]] { [pklg(bigEndian: false), pklg(bigEndian: true)] }

    /// Small captures to write in each pcap form: a mid-connection LE capture for H4, btmon's (with
    /// notes and controller indexes) for the monitor link type, the sniffer's for the LE air ones.
    static func records(_ link: PcapFileWriter.LinkType) -> [CaptureRecord] {
        if link.isAir { return SnifferCapture.records() }
        return PcapFileWriter.records(
            of: (link == .monitor ? SampleCaptures.monitor() : SampleCaptures.midConnection()).bytes)
    }

    /// Each link type, microsecond and nanosecond magics, either byte order; and the A5 session.
    static var pcap: [[UInt8]] {
        var out: [[UInt8]] = []
        for link in PcapFileWriter.LinkType.allCases {
            for nanoseconds in [false, true] {
                for bigEndian in [false, true] {
                    out.append(
                        write(records(link), link: link, layout: .pcap(nanoseconds: nanoseconds), bigEndian: bigEndian))
                }
            }
        }
        return out + [
            write(
                PcapFileWriter.records(of: SampleCaptures.session().bytes), link: .h4WithDirection,
                layout: .pcap(nanoseconds: false))
        ]
    }

    /// Each link type, if_tsresol absent, 10^-6, 10^-9 and 2^-10, either byte order; a file of
    /// Simple Packet Blocks and statistics; and the A5 session.
    static var pcapng: [[UInt8]] {
        var out: [[UInt8]] = []
        for link in PcapFileWriter.LinkType.allCases {
            for tsresol: UInt8? in [nil, 6, 9, 0x80 | 10] {
                for bigEndian in [false, true] {
                    out.append(
                        write(records(link), link: link, layout: .pcapng(tsresol: tsresol), bigEndian: bigEndian))
                }
            }
        }
        var simple = PcapFileWriter(link: .h4, layout: .pcapng(tsresol: 6))
        for r in records(.h4).prefix(4) { simple.add(r) }
        simple.addSimple([0x01, 0x03, 0x0c, 0x00])
        simple.addStatistics(received: 5)
        out.append(simple.bytes)
        return out + [
            write(
                PcapFileWriter.records(of: SampleCaptures.session().bytes), link: .h4WithDirection,
                layout: .pcapng(tsresol: 6))
        ]
    }

    static func write(
        _ records: [CaptureRecord], link: PcapFileWriter.LinkType, layout: PcapFileWriter.Layout,
        bigEndian: Bool = false
    ) -> [UInt8] {
        var w = PcapFileWriter(link: link, layout: layout, bigEndian: bigEndian)
        for r in records { w.add(r) }
        return w.bytes
    }

    /// Summaries of a command, its event and ACL data, versions 1 and 2 (one packet cut in 2).
    static var btsnooz: [BTSnoozWriter] {
        ([1, 2] as [UInt8]).map { version in
            var w = BTSnoozWriter(version: version, lastTimestamp: 0x00dc_d6c4_a2a0_0000)
            w.records = [
                .init(type: 0x20, delta: 10, bytes: [0x03, 0x0c, 0x00]),
                .init(type: 0x10, delta: 20, bytes: [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]),
                .init(
                    type: 0x11, delta: 30,
                    bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 1, 2, 3],
                    original: version == 2 ? 20 : nil),
            ]
            return w
        }
    }

    /// The log where Android puts it, deflated and stored; a log's older copy beside it; the summary in bugreport text.
    static var bugreport: [[UInt8]] {
        let log = SampleCaptures.midConnection().bytes
        let folder = "FS/data/misc/bluetooth/logs/"
        return [
            BugreportZip.make([(folder + "btsnoop_hci.log", log, true)]),
            BugreportZip.make([(folder + "btsnoop_hci.log", log, false), (folder + "btsnoop_hci.log.last", log, true)]),
            BugreportZip.make([("bugreport-phone-2026-11-24.txt", Array(btsnooz[1].text().utf8), true)]),
        ]
    }

    /// Every form of every format, as a user hands btlens a file.
    static var pipeline: [[UInt8]] {
        btsnoop + pklg + pcap + pcapng + btsnooz.map { Array($0.text().utf8) }
    }

    /// A PacketLogger file of a few records: a note, a command, an event, ACL both ways.
    static func pklg(bigEndian: Bool) -> [UInt8] {
        let records: [(UInt8, [UInt8])] = [
            (0xfc, Array("Product: iPhone".utf8)), (0x00, [0x03, 0x0c, 0x00]),
            (0x01, [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]),
            (0x02, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x52, 0x13, 0x00]),
            (0x03, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00]),
        ]
        var out: [UInt8] = []
        for (i, (type, payload)) in records.enumerated() {
            let length = UInt32(9 + payload.count)
            let seconds = UInt32(1_700_000_000 + i)
            let micros = UInt32(i * 1000)
            for v in [length, seconds, micros] {
                let le = [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
                out += bigEndian ? le.reversed() : le
            }
            out += [type] + payload
        }
        return out
    }
}
