import BTLensCapture
import BTLensCore
import BTLensDissect

/// Counts for `btlens stats`, gathered while the capture streams past.
public final class StatsCollector {
    public let file: String
    public let info: CaptureInfo
    // The counters touched for every record or decoded frame are only ever used from one thread (the
    // decoding one in `stats`), one plain read-modify-write at a time, never across a call back into
    // the collector: in `SingleOwnerCell`s they skip a runtime check each, per record (scripts/benchmark's
    // `stats` figure). Counters touched once per capture, or per truncated record, keep their check.
    public var records: Int { recordCount.value }
    private let recordCount = SingleOwnerCell(0)
    // Counted in arrays indexed by the small raw values: no hashing per record.
    private let kindCounts = SingleOwnerCell([Int](repeating: 0, count: 256))
    /// ATT PDUs by opcode: in `.counts` detail they come in the analyzer's tally, once per capture.
    private var opcodeCounts = [Int](repeating: 0, count: 256)
    private let a5Counts = SingleOwnerCell([0, 0])
    public var recordsByKind: [RecordKind: Int] {
        Dictionary(
            uniqueKeysWithValues: RecordKind.allCases.compactMap { k in
                kindCounts.value[Int(k.rawValue)] > 0 ? (k, kindCounts.value[Int(k.rawValue)]) : nil
            })
    }
    public private(set) var truncatedRecords = 0
    /// The traffic's first and last times; the notes' only in a capture of notes alone. An iPhone's
    /// PacketLogger file begins with notes days older than its traffic, which keep their own times.
    public var firstTime: Timestamp? { traffic.value.first ?? notes.value.first }
    public var lastTime: Timestamp? { traffic.value.first == nil ? notes.value.last : traffic.value.last }
    private let traffic = SingleOwnerCell<(first: Timestamp?, last: Timestamp?)>((nil, nil))
    private let notes = SingleOwnerCell<(first: Timestamp?, last: Timestamp?)>((nil, nil))
    public var attByOpcode: [UInt8: Int] {
        Dictionary(uniqueKeysWithValues: opcodeCounts.enumerated().compactMap { $1 > 0 ? (UInt8($0), $1) : nil })
    }
    public var a5Frames: [Direction: Int] {
        Dictionary(
            uniqueKeysWithValues: Direction.allCases.compactMap {
                a5Counts.value[Int($0.rawValue)] > 0 ? ($0, a5Counts.value[Int($0.rawValue)]) : nil
            })
    }
    public private(set) var a5BadChecksum = 0
    /// Frames of the vendors' own framings, per dissector, with their bad checksums.
    public private(set) var framed = FramedCounts()
    public private(set) var diagnostics: [String: (Severity, Int)] = [:]
    public private(set) var undecodedBytes = 0
    /// MFi accessories as their iAP2 IdentificationInformation describes them.
    public private(set) var accessories: [IAP2Identification] = []
    /// Every undecoded byte by where it was: the channel of `undecoded` events, the id of diagnostics.
    public private(set) var undecodedByWhat: [String: Int] = [:]
    public var commands: CommandStats { commandStats.value }
    private let commandStats = SingleOwnerCell(CommandStats())
    public var bytes: ByteAccounting { byteAccounting.value }
    private let byteAccounting = SingleOwnerCell(ByteAccounting())
    /// The record being decoded, and whether the capture cut it: its undecoded bytes are counted as truncated.
    private let current = SingleOwnerCell((record: 0, truncated: false))
    /// Phone and controller facts from PacketLogger header notes ("Product: iPhone17,2", …).
    public private(set) var captureNotes: [String] = []
    static let captureNoteLimit = 32
    static let captureNotePrefixes = [
        "Product:", "Firmware Version:", "Chipset:", "Transport:", "Address:",
        "Bluetooth Host:", "Software:", "Firmware Filename:",
    ]

    public init(file: String, info: CaptureInfo) {
        self.file = file
        self.info = info
    }

    public func record(_ r: CaptureRecord) {
        recordCount.value += 1
        byteAccounting.value.record(r)
        current.value = (r.number, r.isTruncated)
        kindCounts.value[Int(r.kind.rawValue)] += 1
        if r.isTruncated { truncatedRecords += 1 }
        if r.kind == .note, captureNotes.count < Self.captureNoteLimit,
            Self.captureNotePrefixes.contains(where: { r.noteText.hasPrefix($0) })
        {
            captureNotes.append(r.noteText)
        }
        if r.kind == .note {
            if notes.value.first == nil { notes.value.first = r.timestamp }
            notes.value.last = r.timestamp
        } else {
            if traffic.value.first == nil { traffic.value.first = r.timestamp }
            traffic.value.last = r.timestamp
        }
    }

    /// `--filter`: the events counted; the records, connections and bytes are the whole capture's.
    public var filter: (expression: String, selects: (Event) -> Bool)?

    /// `--app-log`: each log's alignment and lines.
    private var appLogs = AppLogStats()

    public func event(_ e: Event) {
        if appLogs.count(e) { return }
        if let filter, !filter.selects(e) { return account(e) }
        count(e)
    }

    /// Counts an event the filter selected (or every event, with none).
    public func count(_ e: Event) {
        switch e.body {
        case .hciCommand(let c): vendor(c.vendorBytes, e)
        case .hciEvent(let h): vendor(h.vendorBytes, e)
        case .hciDebug(let d): debug(d.length, e)
        case .att(let a): opcodeCounts[Int(a.opcode.rawValue)] += 1
        case .frame(let a):
            if a.isA5 {
                a5Counts.value[Int((e.direction ?? .sent).rawValue)] += 1
                if !a.frame.checksumOK { a5BadChecksum += 1 }
            } else if a.framing != nil, let d = a.dissector {
                framed.frame(d, received: e.direction == .received, checksumOK: a.frame.checksumOK)
            }
            commandStats.value.message(a, direction: e.direction)
        case .diagnostic(let d):
            // Counted as the timeline shows them: the consequences of a condition said once (--verbose
            // detail) are not counted again, though their bytes are.
            if e.isTop { diagnostics[d.id, default: (d.severity, 0)].1 += 1 }
            undecodedBytes += d.undecodedBytes
            // Bytes a diagnostic stands for (skipped, cut, malformed) are listed under its id.
            if d.undecodedBytes > 0 { undecodedByWhat[d.id, default: 0] += d.undecodedBytes }
            byteAccounting.value.undecoded(
                d.undecodedBytes, record: e.record, inTruncatedRecord: current.value == (e.record, true))
            if d.kind == DissectorDiagnostics.unanswered { commandStats.value.unanswered(d) }
        case .iap2Identification(let i):
            if !accessories.contains(i), accessories.count < 64 { accessories.append(i) }
        case .undecoded(let u):
            undecodedBytes += u.length
            undecodedByWhat[u.what, default: 0] += u.length
            byteAccounting.value.undecoded(
                u.length, record: e.record, inTruncatedRecord: current.value == (e.record, true))
        default: break
        }
    }

    /// The bytes an event not counted stands for: the byte accounting is the whole capture's.
    public func account(_ e: Event) {
        switch e.body {
        case .hciCommand(let c): vendor(c.vendorBytes, e)
        case .hciEvent(let h): vendor(h.vendorBytes, e)
        case .hciDebug(let d): debug(d.length, e)
        case .diagnostic(let d):
            byteAccounting.value.undecoded(
                d.undecodedBytes, record: e.record, inTruncatedRecord: current.value == (e.record, true))
        case .undecoded(let u):
            byteAccounting.value.undecoded(
                u.length, record: e.record, inTruncatedRecord: current.value == (e.record, true))
        default: break
        }
    }

    private func vendor(_ n: Int, _ e: Event) {
        if n > 0 { byteAccounting.value.vendor(n, inTruncatedRecord: current.value == (e.record, true)) }
    }

    private func debug(_ n: Int, _ e: Event) {
        if n > 0 { byteAccounting.value.debug(n, inTruncatedRecord: current.value == (e.record, true)) }
    }

    /// What the analyzer counted instead of sending as events (`Analyzer.Detail.counts`).
    public func add(_ t: Tally) {
        for (i, n) in t.attOpcodes.enumerated() { opcodeCounts[i] += n }
        for (i, n) in t.a5Frames.enumerated() { a5Counts.value[i] += n }
        a5BadChecksum += t.a5BadChecksum
        framed.add(t.framed)
        commandStats.value.add(t.commands)
    }

    /// A problem with the file itself: the bytes it stands for.
    public func problem(_ p: CaptureProblem) { byteAccounting.value.problem(p) }

    /// Reading is over: `bytesRead` is how far the reader got.
    public func finish(bytesRead: Int64) { byteAccounting.value.finish(info: info, bytesRead: bytesRead) }

    public var a5Total: Int { a5Frames.values.reduce(0, +) }

    /// Per-command counts and latency, sorted by dissector and command.
    var commandRows: [Report.Command] {
        commands.sorted.map { key, e in
            Report.Command(
                dissector: key.dissector, command: key.command, name: e.name, sent: e.sent, received: e.received,
                answered: e.answered, unanswered: e.unanswered, latency: CommandStats.latency(e))
        }
    }

    /// Closed connections past `--limit connection-history`: counted, not listed.
    public var connectionsDropped = 0
    /// Which definition files named the frames, from where (set by the command line).
    public var definitions: DefinitionSources?

    public func json(connections: [ConnectionInfo], advertisers: AdvertisingTable = AdvertisingTable()) -> String {
        var w = JSONWriter()
        w.beginObject()
        jsonCapture(&w)
        w.key("connections")
        w.beginArray()
        for c in connections { ConnectionSummary.json(&w, c) }
        w.endArray()
        w.key("advertisers")
        AdvertisingSummary.json(&w, advertisers.sorted.map(Report.Advertiser.init))
        AdvertisingSummary.json(&w, Report.AdvertisersNotListed(advertisers))
        w.key("accessories")
        w.beginArray()
        for a in accessories {
            w.beginObject()
            w.identification(a)
            w.endObject()
        }
        w.endArray()
        jsonATTAndA5(&w)
        jsonCommands(&w)
        if !appLogs.logs.isEmpty {
            w.key("app_logs")
            appLogs.json(&w)
        }
        w.key("diagnostics")
        w.beginObject()
        for (id, (_, n)) in diagnostics.sorted(by: { $0.key < $1.key }) { w.field(named: id, n) }
        w.endObject()
        w.field("undecoded_bytes", undecodedBytes)
        w.key("bytes")
        bytes.json(&w)
        w.key("undecoded_by_channel")
        w.beginObject()
        for (what, n) in undecodedByWhat.sorted(by: { $0.key < $1.key }) { w.field(named: what, n) }
        w.endObject()
        w.key("capture_information")
        w.beginArray()
        for n in info.notes + captureNotes { w.string(n) }
        w.endArray()
        if let definitions {
            w.key("definitions")
            w.definitions(definitions)
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self) + "\n"
    }

    /// The capture file: its format and link type, its records by kind and its time span.
    private func jsonCapture(_ w: inout JSONWriter) {
        w.field("file", file)
        w.field("format", info.format)
        w.field("datalink", info.linkType)
        w.field("link_type", info.linkType)
        w.field("link_type_name", info.linkTypeName)
        w.field("records", records)
        w.key("records_by_kind")
        w.beginObject()
        for kind in RecordKind.allCases { if let n = recordsByKind[kind] { w.field(named: kind.name, n) } }
        w.endObject()
        w.field("truncated_records", truncatedRecords)
        if let t = firstTime { w.field("first_time", t.iso8601) }
        if let t = lastTime { w.field("last_time", t.iso8601) }
        if let filter { w.field("filter", filter.expression) }
        if connectionsDropped > 0 { w.field("connections_not_listed", connectionsDropped) }
    }

    /// ATT PDUs by opcode, and the A5 frames by direction with those whose checksum is wrong.
    private func jsonATTAndA5(_ w: inout JSONWriter) {
        w.key("att_pdus")
        w.beginObject()
        for (op, n) in attByOpcode.sorted(by: { $0.key < $1.key }) { w.field(named: ATTOpcode(rawValue: op).name, n) }
        w.endObject()
        w.key("a5_frames")
        w.beginObject()
        w.field("total", a5Total)
        w.field("sent", a5Frames[.sent] ?? 0)
        w.field("received", a5Frames[.received] ?? 0)
        w.field("checksum_bad", a5BadChecksum)
        w.endObject()
        // Only with frames of other framings: the A5-only output stays as it was.
        guard !framed.counts.isEmpty else { return }
        w.key("frames_by_dissector")
        w.beginObject()
        for (d, c) in framed.sorted {
            w.key(named: d)
            w.beginObject()
            w.field("total", c.total)
            w.field("sent", c.sent)
            w.field("received", c.received)
            w.field("checksum_bad", c.checksumBad)
            w.endObject()
        }
        w.endObject()
    }

    /// Each command a dissector paired with its answer: counts and latency.
    private func jsonCommands(_ w: inout JSONWriter) {
        w.key("commands")
        w.beginArray()
        for (key, e) in commands.sorted {
            w.beginObject()
            w.field("dissector", key.dissector)
            w.field("command", key.command)
            if let n = e.name { w.field("name", n) }
            w.field("sent", e.sent)
            w.field("received", e.received)
            w.field("answered", e.answered)
            w.field("unanswered", e.unanswered)
            if let latency = CommandStats.latency(e) {
                w.key("latency_ms")
                w.beginObject()
                for (k, v) in latency {
                    w.key(named: k)
                    w.number(v)
                }
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
    }

    public func text(connections: [ConnectionInfo], advertisers: AdvertisingTable = AdvertisingTable()) -> String {
        var lines: [String] = []
        lines.append("File:        \(TerminalText.safe(file))")
        lines.append("Format:      \(info.format), link type \(info.linkType) (\(info.linkTypeName))")
        for n in info.notes + captureNotes { lines.append("             \(TerminalText.safe(n))") }
        if let definitions { lines.append("Dissectors:  \(TerminalText.safe(definitions.summary))") }
        let kinds = RecordKind.allCases.compactMap { k in recordsByKind[k].map { "\(k.name) \($0)" } }
        if let filter {
            lines.append(
                "Filter:      \(TerminalText.safe(filter.expression)) (the ATT PDUs, frames, commands, diagnostics, undecoded bytes and accessories it selects; records, connections and bytes whole)"
            )
        }
        lines.append("Records:     \(records)" + (kinds.isEmpty ? "" : " (\(kinds.joined(separator: ", ")))"))
        if truncatedRecords > 0 {
            lines.append("Truncated:   \(Plural.of(truncatedRecords, "record")) cut short by the capture")
        }
        if let f = firstTime, let l = lastTime {
            lines.append("Time:        \(f.iso8601) … \(l.iso8601) (\(l.offset(from: f)) s)")
        }
        lines.append(
            "Connections: \(connections.count)"
                + (connectionsDropped > 0
                    ? " listed, and \(connectionsDropped) earlier ones past --limit connection-history" : ""))
        for c in connections { lines += ConnectionSummary.text(c) }
        lines += AdvertisingSummary.text(advertisers)
        for a in accessories {
            let protocols = a.protocols.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
            lines.append(
                TerminalText.safe(
                    "Accessory:   \(a.name), \(a.model) by \(a.manufacturer), serial \(a.serial), firmware \(a.firmware), hardware \(a.hardware); EA \(protocols)"
                ))
        }
        lines.append("ATT PDUs:    \(attByOpcode.values.reduce(0, +))")
        for (op, n) in attByOpcode.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(pad(String(n), 7)) \(ATTOpcode(rawValue: op).name)")
        }
        lines.append(
            "A5 frames:   \(a5Total) (sent \(a5Frames[.sent] ?? 0), received \(a5Frames[.received] ?? 0), bad checksum \(a5BadChecksum))"
        )
        for (d, c) in framed.sorted {
            lines.append(
                "Frames:      \(c.total) \(TerminalText.safe(d)) (sent \(c.sent), received \(c.received), bad checksum \(c.checksumBad))"
            )
        }
        if !commands.entries.isEmpty {
            lines.append("Commands:    sent received answered unanswered  latency ms (min median p95 max)")
        }
        for (key, e) in commands.sorted {
            let latency =
                CommandStats.latency(e).map { $0.map { MessageValue.number($0.1) }.joined(separator: " ") } ?? "-"
            let name = TerminalText.safe(e.name ?? "command")
            lines.append(
                "  \(pad(String(e.sent), 7)) \(pad(String(e.received), 8)) \(pad(String(e.answered), 8)) \(pad(String(e.unanswered), 10))  "
                    + "\(pad(latency, 19))  \(name) (\(Hex.value(key.command, width: 2))) [\(TerminalText.safe(key.dissector))]"
            )
        }
        lines += appLogs.text
        let total = diagnostics.values.reduce(0) { $0 + $1.1 }
        lines.append("Diagnostics: \(total)")
        for (id, (severity, n)) in diagnostics.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(pad(String(n), 7)) \(pad(severity.name, 8)) \(id)")
        }
        lines.append("Undecoded:   \(undecodedBytes) bytes")
        for (what, n) in undecodedByWhat.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(pad(String(n), 9)) \(what)")
        }
        lines += bytes.lines
        return lines.joined(separator: "\n") + "\n"
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : String(repeating: " ", count: n - s.count) + s
    }
}
