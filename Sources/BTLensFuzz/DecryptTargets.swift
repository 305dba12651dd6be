import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensTestSupport

/// The decryptor: an encrypted sample capture changed packet by packet and decoded with its key,
/// so that mutations reach the session set-up, the key trials, MIC checks, counters, pauses and the
/// pairing a key is derived from. The input's first byte picks the sample (the LTK given, or the
/// Just Works pairing whose keys the capture gives away); each part then changes one record, the
/// tag's bits 0–5 picking it and bits 6–7 what is done: 0 its PDU (after the access address) replaced
/// by the body, 1 the body XORed into it, 2 the record dropped, 3 the record heard twice.
enum DecryptTargets {
    static let all = [
        FuzzTarget(
            name: "sniffer-decrypt",
            summary:
                "an encrypted sniffer sample, its records replaced, damaged, dropped or repeated, decoded with its key",
            seeds: { seeds }, run: run)
    ]

    static let samples: [(bytes: [UInt8], link: PcapFileWriter.LinkType, keys: [LinkLayerKey])] = {
        let all = SnifferSamples.all
        let given = LinkLayerKey(address: nil, ltk: SnifferSamples.sampleLTK, source: "--ltk 1")
        return [
            (all.first { $0.file.contains("ltk") }?.bytes ?? [], .leWithPseudoHeader, [given]),
            (all.first { $0.file.contains("just_works") }?.bytes ?? [], .nordic, []),
        ]
    }()

    static let seeds: [[UInt8]] = [
        [0], [1], [0, 9, 1, 0x01], [1, 11, 1, 0x80], [0, 0x87, 0], [1, 0xc5, 0],
        [0, 8, 5, 0x03, 0x01, 0x02, 0x03, 0x04],
    ]

    static func run(_ bytes: [UInt8]) {
        let sample = samples[Int(bytes.first ?? 0) % samples.count]
        var records = PcapFileWriter.records(of: sample.bytes)
        for (tag, body) in Parts(Array(bytes.dropFirst())) where !records.isEmpty {
            let i = Int(tag & 0x3f) % records.count
            var r = records[i]
            let pdu = Array(r.payload.dropFirst(4).dropLast(3))
            switch tag >> 6 {
            case 0: r.payload = (r.payload.prefix(4) + body + r.payload.suffix(3))[...]
            case 1:
                let mixed = pdu.enumerated().map { $0.element ^ (body.isEmpty ? 0 : body[$0.offset % body.count]) }
                r.payload = (r.payload.prefix(4) + mixed + r.payload.suffix(3))[...]
            case 2:
                records.remove(at: i)
                continue
            default: records.insert(r, at: i)
            }
            records[i] = r
        }
        var w = PcapFileWriter(link: sample.link, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        CaptureTargets.decode(w.bytes, keys: sample.keys)
    }
}
