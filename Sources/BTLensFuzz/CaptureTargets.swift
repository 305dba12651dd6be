import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation

/// The capture readers, and the whole pipeline from file bytes to rendered output.
enum CaptureTargets {
    static let all = [
        FuzzTarget(
            name: "btsnoop", summary: "a btsnoop file (its magic restored): datalinks 1001, 1002, 2001",
            seeds: { CaptureSeeds.btsnoop },
            run: { read(CaptureFormat.btsnoopMagic + $0.dropFirst(CaptureFormat.btsnoopMagic.count)) }),
        FuzzTarget(
            name: "pklg", summary: "a PacketLogger file, either byte order (other formats are skipped)",
            seeds: { CaptureSeeds.pklg }, run: { read($0, only: "pklg") }),
        FuzzTarget(
            name: "pcap", summary: "a pcap file (its magics only), its record headers walked, read by libpcap",
            seeds: { CaptureSeeds.pcap },
            run: { bytes in
                guard pcapMagics.contains(magic(bytes)) else { return }
                PcapFields.pcap(bytes)
                read(bytes)
            }),
        FuzzTarget(
            name: "pcapng", summary: "a pcapng file (its magic only), its blocks walked, read by libpcap",
            seeds: { CaptureSeeds.pcapng },
            run: { bytes in
                guard magic(bytes) == 0x0a0d_0d0a else { return }
                PcapFields.pcapng(bytes)
                read(bytes)
            }),
        FuzzTarget(
            name: "btsnooz", summary: "an Android bugreport's BTSNOOP_LOG_SUMMARY text (base64, zlib)",
            seeds: { CaptureSeeds.btsnooz.map { Array($0.text().utf8) } }, run: { read($0, only: "btsnooz") }),
        FuzzTarget(
            name: "btsnooz-log",
            summary: "a btsnooz summary's decoded bytes (version, last time, records), put in a bugreport's text",
            seeds: { CaptureSeeds.btsnooz.map { [$0.version] + le64($0.lastTimestamp) + $0.blob } },
            run: { read(btsnoozText($0)) }),
        FuzzTarget(
            name: "bugreport", summary: "a bugreport .zip (its first magic restored), its best member read",
            seeds: { CaptureSeeds.bugreport }, run: { readArchive([0x50, 0x4b, 0x03, 0x04] + $0.dropFirst(4)) }),
        FuzzTarget(
            name: "pipeline", summary: "any capture, through every decoder, the definitions and the renderers",
            seeds: { CaptureSeeds.pipeline }, run: { decode($0) }),
    ]

    static let pcapMagics: Set<UInt32> = [0xa1b2_c3d4, 0xd4c3_b2a1, 0xa1b2_3c4d, 0x4d3c_b2a1]

    static func magic(_ bytes: [UInt8]) -> UInt32 {
        bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } << (8 * UInt32(4 - min(bytes.count, 4)))
    }

    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    /// The text a bugreport holds around a summary whose decoded bytes are `bytes`.
    static func btsnoozText(_ bytes: [UInt8]) -> [UInt8] {
        let time = bytes.dropFirst().prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let w = BTSnoozWriter(version: bytes.first ?? 0, lastTimestamp: time)
        return Array(w.text(compressed: BTSnoozWriter.deflate(Array(bytes.dropFirst(9)))).utf8)
    }

    /// A zip is read from a file: the input is written to one of this process's own, read, and removed.
    static func readArchive(_ bytes: [UInt8]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-fuzz-\(getpid()).zip").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
        defer { unlink(path) }
        guard var reader = try? CaptureFormat.open(path: path, archiveLimit: 1 << 20) else { return }
        while let item = try? reader.next() { _ = item }
    }

    /// Reads every record; nothing is decoded.
    /// Reads every record; nothing is decoded. With `only`, other formats are opened but not read.
    static func read(_ bytes: [UInt8], only format: String? = nil) {
        guard var reader = try? CaptureFormat.open(MemorySource(bytes)),
            format.map({ $0 == reader.info.format }) ?? true
        else { return }
        while let item = try? reader.next() { _ = item }
    }

    /// The definitions shipped in Dissectors/, so that fuzzing reaches the definition decoders too.
    static let shipped: DissectorTable = {
        DefinitionLoader.load([FuzzTarget.dissectorsFolder], required: false).table
    }()

    /// The pipeline `btlens timeline` and `stats` run: every event rendered as JSONL and text, and
    /// counted; on every other input in `.counts` detail, as `stats` runs it.
    static func decode(
        _ bytes: [UInt8], decodeAs: [DecodeAs] = [], dissectors: DissectorTable = shipped, keys: [LinkLayerKey] = []
    ) {
        guard var reader = try? CaptureFormat.open(MemorySource(bytes)) else { return }
        let jsonl = JSONLRenderer(verbose: true)
        var text = TextRenderer(verbose: true, color: true)
        let stats = StatsCollector(file: "fuzz", info: reader.info)
        let detail: Analyzer.Detail = bytes.count.isMultiple(of: 2) ? .counts : .full
        var configuration = Configuration(decodeAs: decodeAs, dissectors: dissectors, detail: detail)
        configuration.linkLayerKeys = keys
        let analyzer = try? Pipeline.run(&reader, configuration, onRecord: stats.record) { e in
            _ = jsonl.render(e)
            _ = text.render(e)
            stats.event(e)
        }
        if let analyzer { stats.add(analyzer.tally) }
        let connections = analyzer?.connectionSummaries ?? []
        _ = stats.text(connections: connections)
        _ = stats.json(connections: connections)
    }
}
