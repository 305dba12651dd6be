import BTLensCore
import BTLensCapture
import BTLensDissect
import BTLensDefinitions
import BTLensReport
import BTLensTestSupport

/// The capture readers, and the whole pipeline from file bytes to rendered output.
enum CaptureTargets {
    static let all = [
        FuzzTarget(name: "btsnoop", summary: "a btsnoop file (its magic restored): datalinks 1001, 1002, 2001",
                   seeds: { SampleCaptures.all.map(\.session.bytes) },
                   run: { read(CaptureFormat.btsnoopMagic + $0.dropFirst(CaptureFormat.btsnoopMagic.count)) }),
        FuzzTarget(name: "pklg", summary: "a PacketLogger file, either byte order",
                   seeds: { [pklg(bigEndian: false), pklg(bigEndian: true)] }, run: { read($0) }),
        FuzzTarget(name: "pcap", summary: "a pcap or pcapng file, read by libpcap from memory",
                   seeds: { [] }, run: { read($0) }),
        FuzzTarget(name: "btsnooz", summary: "an Android bugreport's BTSNOOP_LOG_SUMMARY text (base64, zlib)",
                   seeds: { [btsnooz()] }, run: { read($0) }),
        FuzzTarget(name: "pipeline", summary: "any capture, through every decoder, the definitions and the renderers",
                   seeds: { SampleCaptures.all.map(\.session.bytes) }, run: { decode($0) }),
    ]

    /// Reads every record; nothing is decoded.
    static func read(_ bytes: [UInt8]) {
        guard var reader = try? CaptureFormat.open(MemorySource(bytes)) else { return }
        while let item = try? reader.next() { _ = item }
    }

    /// The definitions shipped in Dissectors/, so that fuzzing reaches the definition decoders too.
    static let shipped: DissectorTable = {
        DefinitionLoader.load([FuzzTarget.dissectorsFolder], required: false).table
    }()

    /// The pipeline `btlens timeline` and `stats` run: every event rendered as JSONL and text, and
    /// counted; on every other input in `.counts` detail, as `stats` runs it.
    static func decode(_ bytes: [UInt8], decodeAs: [Analyzer.DecodeAs] = [], dissectors: DissectorTable = shipped) {
        guard var reader = try? CaptureFormat.open(MemorySource(bytes)) else { return }
        let jsonl = JSONLRenderer(verbose: true)
        var text = TextRenderer(verbose: true, color: true)
        let stats = StatsCollector(file: "fuzz", info: reader.info)
        let detail: Analyzer.Detail = bytes.count.isMultiple(of: 2) ? .counts : .full
        let analyzer = try? Pipeline.run(&reader, decodeAs: decodeAs, dissectors: dissectors, detail: detail,
                                         onRecord: stats.record) { e in
            _ = jsonl.render(e)
            _ = text.render(e)
            stats.event(e)
        }
        if let analyzer { stats.add(analyzer.tally) }
        let connections = analyzer?.connectionSummaries ?? []
        _ = stats.text(connections: connections)
        _ = stats.json(connections: connections)
    }

    /// A bugreport summary of a command, its event and ACL data (version 2, one packet cut).
    static func btsnooz() -> [UInt8] {
        var w = BTSnoozWriter(version: 2, lastTimestamp: 0x00dc_d6c4_a2a0_0000)
        w.records = [.init(type: 0x20, delta: 10, bytes: [0x03, 0x0c, 0x00]),
                     .init(type: 0x10, delta: 20, bytes: [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]),
                     .init(type: 0x11, delta: 30, bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 1, 2, 3],
                           original: 20)]
        return Array(w.text().utf8)
    }

    /// A PacketLogger file of a few records: a note, a command, an event, ACL both ways.
    static func pklg(bigEndian: Bool) -> [UInt8] {
        let records: [(UInt8, [UInt8])] = [(0xfc, Array("Product: iPhone".utf8)), (0x00, [0x03, 0x0c, 0x00]),
                                           (0x01, [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]),
                                           (0x02, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x52, 0x13, 0x00]),
                                           (0x03, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00])]
        var out: [UInt8] = []
        for (i, (type, payload)) in records.enumerated() {
            let length = UInt32(9 + payload.count)
            let seconds = UInt32(1_700_000_000 + i), micros = UInt32(i * 1000)
            for v in [length, seconds, micros] {
                let le = [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
                out += bigEndian ? le.reversed() : le
            }
            out += [type] + payload
        }
        return out
    }
}
