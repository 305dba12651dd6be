import BTLensCapture
import BTLensCore
import BTLensDissect

/// Builds a `Report` while the capture streams past, in bounded memory: counts and diagnostics are
/// complete; the timeline keeps the chosen range only, if there is one, and of that (or of the whole
/// capture) the first rows and a window around every diagnostic, and says what it left out.
public final class ReportBuilder {
    public struct Options: Sendable {
        /// Records (or seconds since the first record) the timeline keeps, inclusive.
        public var range: ClosedRange<Double>?
        public var rangeIsTime = false
        /// Rows kept from the start whatever happens, then rows kept on each side of a diagnostic.
        public var headRows = 2000
        public var context = 20
        public var rowLimit = 20_000
        public var messageLimit = 400
        public var redact = false
        /// Which definition files were loaded, from where: said in the summary.
        public var definitions: DefinitionSources?
        /// `--filter`: said in the summary; the builder's `selects` applies it.
        public var filter: String?

        public init() {}
    }

    public static let recordsPerDiagnostic = 100
    static let streamLimit = 1024
    static let seriesStreams = 12
    static let buckets = 120

    let options: Options
    public let stats: StatsCollector
    private var text = TextRenderer()
    private var origin: Timestamp?
    private var rows = Report.Rows()
    /// The last `context` events not kept, as events: a row is rendered only if a diagnostic keeps it.
    private var ring: [(index: Int, held: Held)] = []
    /// An event held back in case a diagnostic follows: as it is, its ATT value copied out of its
    /// record; or, for a note, whose text may be a megabyte, as the row it makes.
    private enum Held {
        case event(Event)
        case row(Report.Row)
    }
    private var after = 0
    private var events = 0
    /// Events of the capture, and lines of its app logs, kept in the head of the timeline.
    private var headEvents = 0
    private var headLogLines = 0
    /// App log lines among `events`, and each log's alignment (at most `appLogLimit` logs).
    private var logLines = 0
    private var appLogs: [Report.LogAlignment] = []
    private var linesBySource: [String: Int] = [:]
    static let appLogLimit = 64
    /// The app log line kept last, with its row: a diagnostic that follows it may name it.
    private var lastLogLine: (line: Report.LogLine, row: Int, detail: String)?
    private var omitted = 0
    /// Of those, events outside `--from`/`--to`.
    private var outsideRange = 0
    private var messages: [Report.Message] = []
    private var groups: [String: Report.DiagnosticGroup] = [:]
    /// A stream as counted: its label is made once, when it is first seen, not per frame.
    struct StreamID: Hashable {
        var connection: UInt16
        var attHandle: UInt16?
        var uuid: BluetoothUUID?
        var rfcommChannel: UInt8?
        var eaSession: UInt16?
        var protocolName: String?

        init(_ a: FrameInfo, connection: UInt16) {
            self.connection = connection
            (attHandle, uuid, rfcommChannel, eaSession, protocolName) = (
                a.attHandle, a.uuid, a.rfcommChannel, a.eaSession, a.protocolName
            )
        }
    }

    private var streams: [StreamID: Report.Stream] = [:]
    private var streamOrder: [StreamID] = []
    /// Starts at 1 ms and doubles as the capture grows, so short and long captures both fill the chart.
    private var bucketSeconds = 0.001
    private var series: [StreamID: [Int]] = [:]
    /// GAP Device Name values read, per connection handle: the first one names the connection.
    private var names: [UInt16: String] = [:]
    /// Every Device Name value read, every remote and local name, and every device a PacketLogger config record
    /// names (bounded), for `--redact`.
    private var deviceNames: Set<String> = []
    private var deviceAddresses: Set<String> = []
    /// Connections whose last Read By Type Request asked for the Device Name.
    private var nameByType: Set<UInt16> = []
    static let deviceNameLimit = 10_000

    public init(file: String, info: CaptureInfo, options: Options = Options()) {
        self.options = options
        stats = StatsCollector(file: file, info: info)
    }

    public func record(_ r: CaptureRecord) {
        stats.record(r)
        // A config record names a device the phone knows, which the capture may name nowhere else.
        if options.redact, r.kind == .note, r.noteCategory == PacketLoggerDevice.category,
            let d = PacketLoggerDevice(config: r.payload),
            deviceNames.count < Self.deviceNameLimit
        {
            deviceNames.insert(d.name)
            if let a = d.address { deviceAddresses.insert(a.description) }
        }
    }

    /// What the builder is fed, in capture order: a record, then the events decoded from it.
    public enum Input: Sendable {
        case record(CaptureRecord)
        case event(Event)
    }

    public func take(_ input: Input) {
        switch input {
        case .record(let r): record(r)
        case .event(let e): event(e)
        }
    }

    /// `--filter`: the timeline, charts, messages, commands and findings are of the events it
    /// selects; connections (and their names) and records are the whole capture's.
    public var selects: ((Event) -> Bool)?

    /// Where seconds count from, when it is known before the first event (`TrafficOrigin`).
    public func begin(at origin: Timestamp) {
        if self.origin == nil { self.origin = origin }
    }

    public func event(_ e: Event) {
        let fromLog = Self.fromAppLog(e)
        if options.redact { hciName(e.body) }
        if let selects, !selects(e) {
            stats.account(e)
            guard e.isTop else { return }
            if origin == nil, !fromLog { origin = e.timestamp }
            if let c = e.connection { deviceName(e.body, c) }
            return
        }
        stats.count(e)
        guard e.isTop else { return }
        // Seconds count from the capture's first event: a log line before it is at a negative time.
        if origin == nil, !fromLog { origin = e.timestamp }
        events += 1
        let seconds = Double(e.timestamp.elapsed(since: start(e))) / 1_000_000
        tally(e)
        if let c = e.connection { deviceName(e.body, c) }
        if case .frame(let a) = e.body { count(a, e, seconds) }
        let inRange = options.range.map { $0.contains(options.rangeIsTime ? seconds : Double(e.record)) } ?? true
        guard inRange else {
            outsideRange += 1
            omitted += 1
            return
        }
        window(e, fromLog: fromLog)
    }

    /// What the summary counts of every event, kept in the timeline or not: diagnostics by id, app
    /// log lines by log, and each log's alignment.
    private func tally(_ e: Event) {
        switch e.body {
        case .diagnostic(let d):
            group(d, e.record)
        case .log(let l):
            logLines += 1
            // Lines before the capture's first event come before their log's alignment.
            if linesBySource[l.source] != nil || linesBySource.count < Self.appLogLimit {
                linesBySource[l.source, default: 0] += 1
            }
        case .logAlignment(let a):
            if appLogs.count < Self.appLogLimit {
                appLogs.append(
                    Report.LogAlignment(
                        source: a.source, offsetMicroseconds: a.offsetMicroseconds,
                        matched: a.matched, method: a.method.rawValue))
            }
        default:
            break
        }
    }

    /// Keeps an event in range as a row if it is in the head, a diagnostic or within `context` after
    /// one; holds it in the ring otherwise, in case a diagnostic follows.
    private func window(_ e: Event, fromLog: Bool) {
        var isDiagnostic = false
        if case .diagnostic = e.body { isDiagnostic = true }
        // The head is the capture's first `headRows` events, with the log's lines among them (as many
        // again at most): a chatty log does not push the capture's events out of it.
        let inHead =
            headEvents < options.headRows && (!fromLog || headLogLines < options.headRows)
        if inHead || isDiagnostic || after > 0 {
            if isDiagnostic {
                for (index, held) in ring {
                    switch held {
                    case .event(let e): add(row(e, index: index))
                    case .row(let r): add(r)
                    }
                }
                ring.removeAll()
                after = options.context
            } else if !inHead {
                after -= 1
            }
            if inHead {
                if fromLog { headLogLines += 1 } else { headEvents += 1 }
                // Rows stay in order: what the ring held before this row is left out.
                omitted += ring.count
                ring.removeAll()
            }
            keep(row(e, index: events), e)
        } else {
            if case .note = e.body {
                ring.append((events, .row(row(e, index: events))))
            } else {
                ring.append((events, .event(e.detached())))
            }
            if ring.count > options.context {
                ring.removeFirst()
                omitted += 1
            }
        }
    }

    /// Where seconds count from: the first event; before it (an app log's line) the first record, which
    /// comes before anything the merger passes on.
    private func start(_ e: Event) -> Timestamp { origin ?? stats.firstTime ?? e.timestamp }

    /// A line of an app's log, its alignment, or a diagnostic of one (`app.*`, `applog.*`).
    static func fromAppLog(_ e: Event) -> Bool {
        switch e.body {
        case .log, .logAlignment: return true
        case .diagnostic(let d): return d.id.hasPrefix("app.") || d.id.hasPrefix("applog.")
        default: return false
        }
    }

    /// A GAP Device Name (0x2A00) read: by a Read or Read Blob of its handle, or by a Read By Type
    /// of its UUID (the first attribute its response gives).
    private func deviceName(_ body: EventBody, _ c: UInt16) {
        var name: String?
        switch body {
        case .att(let a) where a.opcode == .readByTypeRequest:
            if a.byType == .attributeType(.bit16(GATTNames.deviceName)) {
                nameByType.insert(c)
            } else {
                nameByType.remove(c)
            }
        case .att(let a) where a.opcode == .readByTypeResponse && nameByType.contains(c):
            if case .attributeData(let data)? = a.byType, let first = data.first {
                name = String(decoding: first.value, as: UTF8.self)
            }
        case .att(let a) where a.uuid == .bit16(GATTNames.deviceName):
            if case .string(let text)? = a.fields.first(where: { $0.0 == "text" })?.1 { name = text }
        case .gattValue(let g) where g.uuid == .bit16(GATTNames.deviceName) && g.kind == .longRead:
            name = g.text
        default:
            break
        }
        guard let name, !name.isEmpty else { return }
        if names[c] == nil, names.count < Self.deviceNameLimit { names[c] = name }
        if deviceNames.count < Self.deviceNameLimit { deviceNames.insert(name) }
    }

    /// A remote device's name (Remote Name Request Complete) or the phone's own (Write Local Name,
    /// Read Local Name), which notes and logs may repeat.
    private func hciName(_ body: EventBody) {
        let fields: [(String, FieldValue)]
        switch body {
        case .hciEvent(let h): fields = h.fields
        case .hciCommand(let c): fields = c.fields
        default: return
        }
        for case (let key, .string(let name)) in fields
        where (key == "remote_name" || key == "local_name") && !name.isEmpty && deviceNames.count < Self.deviceNameLimit
        {
            deviceNames.insert(name)
        }
    }

    /// Adds a row unless the timeline holds `rowLimit` already (then it is counted as left out);
    /// whether it was added.
    @discardableResult private func add(_ row: Report.Row) -> Bool {
        guard rows.count < options.rowLimit else {
            omitted += 1
            return false
        }
        rows.append(row)
        return true
    }

    private func keep(_ row: Report.Row, _ e: Event) {
        guard add(row) else { return }
        switch e.body {
        case .frame(let a) where messages.count < options.messageLimit:
            let f = a.frame
            let name = a.messageName ?? (a.hasCommand ? "cmd \(Hex.value(f.command, width: 2))" : "value")
            messages.append(
                Report.Message(
                    row: row.index, record: e.record, sent: e.direction == .sent, label: name,
                    detail: row.text, responseTo: a.pairing?.requestRecord,
                    latencyMs: a.pairing.map { Double($0.latencyMicroseconds) / 1000 }))
        case .log:
            guard let l = row.log else { break }
            lastLogLine = (l, row.index, row.text)
            // The app log's lane shows the lines whose bytes the capture carried.
            if l.matchesRecord != nil { logMessage(l, row: row.index, detail: row.text, record: e.record) }
        case .diagnostic(let d):
            if d.kind == AppLogAirDiagnostics.txNotOnAir, let (l, index, detail) = lastLogLine,
                Self.names(d, l)
            {
                // A line whose bytes never went out: on the lane (once, if another of its runs matched), marked.
                if messages.last?.row != index { logMessage(l, row: index, detail: detail, record: e.record) }
                if let last = messages.indices.last, messages[last].row == index {
                    messages[last].diagnostics.append(d.id)
                }
            } else if d.kind == AppLogAirDiagnostics.rxNotLogged,
                let i = messages.lastIndex(where: { $0.record == e.record && $0.log == nil })
            {
                // Said when its value leaves the matching window, up to 2 s after its message.
                messages[i].diagnostics.append(d.id)
            } else if let last = messages.indices.last, messages[last].record == e.record, messages[last].log == nil {
                messages[last].diagnostics.append(d.id)
            }
        default:
            break
        }
    }

    private func logMessage(_ l: Report.LogLine, row: Int, detail: String, record: Int) {
        guard messages.count < options.messageLimit else { return }
        messages.append(
            Report.Message(
                log: l, row: row, record: l.matchesRecord ?? record, sent: false, label: Self.label(l),
                detail: detail, responseTo: nil, latencyMs: nil))
    }

    /// Whether a diagnostic names this log line (its `source` and `line` fields).
    static func names(_ d: Diagnostic, _ l: Report.LogLine) -> Bool {
        var (source, line) = (false, false)
        for (k, v) in d.fields {
            if k == "source", case .string(let s) = v { source = s == l.source }
            if k == "line", case .int(let n) = v { line = n == l.line }
        }
        return source && line
    }

    private func row(_ e: Event, index: Int) -> Report.Row {
        let (layer, described, _) = text.describe(e)
        let summary = Self.cut(described)
        var isDiagnostic = false
        if case .diagnostic = e.body { isDiagnostic = true }
        var row = Report.Row(
            index: index, record: e.record, offset: e.timestamp.offset(from: start(e)),
            arrow: e.direction?.arrow ?? (isDiagnostic ? "!" : "="), connection: e.connection, layer: layer,
            text: summary)
        switch e.body {
        case .iap2Control(let c) where options.redact && IAP2ControlMessage.wiFiInformationSharing.contains(c.id):
            // Its parameters are a network's SSID and passphrase: left out before the row is kept.
            row.text = "\(c.name) (\(Hex.value(c.id, width: 4))) [Wi-Fi parameters redacted]"
        case .log(let l):
            row.arrow = "~"
            row.log = Report.LogLine(
                source: l.source, line: l.line, level: l.level.map { Self.cut($0) }, tag: l.tag.map { Self.cut($0) },
                message: Self.cut(l.message), matchesRecord: l.matchesRecord)
        case .logAlignment:
            row.arrow = "~"
        case .diagnostic(let d):
            row.severity = d.severity
            row.diagnosticId = d.id
            row.fields = d.fields.map { ($0.0, Self.cut(Self.describe($0.1))) }
        case .frame(let a):
            row.stream = Self.stream(a)
            row.command = a.messageName ?? (a.hasCommand ? Hex.value(a.frame.command, width: 2) : nil)
            row.fields = (a.decoded?.fields ?? []).map { ($0.name, Self.cut($0.value.description)) }
            row.dump = Self.dump(a.frame.payload, length: a.frame.payload.count)
        case .att(let info):
            row.dump = info.value.map { Self.dump($0, length: $0.count) }
        case .undecoded(let u):
            row.dump = Self.dump(u.bytes, length: u.length)
        default:
            break
        }
        return row
    }

    /// A chart line's name: its stream, and its connection when the streams are on more than one
    /// (the same characteristic on two links would otherwise read as one name twice).
    private func seriesLabel(_ k: StreamID) -> String {
        guard let s = streams[k] else { return "" }
        let connections = Set(streamOrder.compactMap { streams[$0]?.connection })
        return connections.count > 1 ? "\(Hex.value(s.connection, width: 4)) \(s.label)" : s.label
    }

    private func group(_ d: Diagnostic, _ record: Int) {
        var g =
            groups[d.id]
            ?? Report.DiagnosticGroup(
                id: d.id, severity: d.severity, summary: d.kind.summary, count: 0,
                records: [], firstMessage: d.message)
        g.count += 1
        if g.records.count < Self.recordsPerDiagnostic, g.records.last != record { g.records.append(record) }
        groups[d.id] = g
    }

    private func count(_ a: FrameInfo, _ e: Event, _ seconds: Double) {
        let key = StreamID(a, connection: e.connection ?? 0)
        if streams[key] == nil {
            guard streams.count < Self.streamLimit else { return }
            streams[key] = Report.Stream(
                label: Self.stream(a), connection: e.connection ?? 0, dissector: a.dissector, sent: 0, received: 0)
            streamOrder.append(key)
        }
        if e.direction == .received { streams[key]?.received += 1 } else { streams[key]?.sent += 1 }
        guard series[key] != nil || series.count < Self.seriesStreams else { return }
        var bucket = Int(max(0, seconds) / bucketSeconds)
        while bucket >= Self.buckets {
            // Twice as wide buckets: neighbours merge, so the series stays bounded however long the capture.
            bucketSeconds *= 2
            for (k, counts) in series {
                series[k] =
                    stride(from: 0, to: Self.buckets, by: 2).map { counts[$0] + counts[$0 + 1] }
                    + Array(repeating: 0, count: Self.buckets / 2)
            }
            bucket = Int(max(0, seconds) / bucketSeconds)
        }
        series[key, default: Array(repeating: 0, count: Self.buckets)][bucket] += 1
    }

    public func finish(
        connections: [ConnectionInfo], gatt: GATTStore, advertisers: AdvertisingTable = AdvertisingTable()
    ) -> Report {
        omitted += ring.count
        let info = stats.info
        let kept = rows.count
        let all =
            Plural.of(events, "event")
            + (logLines > 1
                ? " (\(logLines) of them app log lines)" : logLines == 1 ? " (1 of them an app log line)" : "")
        var window = "all \(all)"
        let range = options.range.map { Self.describe($0, time: options.rangeIsTime) }
        if omitted > outsideRange {
            // Too many events even in the range: a window of it.
            window =
                "\(kept) of \(all): " + (range.map { "in \($0), " } ?? "")
                + "the first \(min(options.headRows, headEvents))"
                + (headLogLines > 0 ? " and the \(headLogLines) log lines among them" : "")
                + ", \(options.context) on each side of every diagnostic"
                + (kept >= options.rowLimit ? ", at most \(options.rowLimit)" : "") + "; \(omitted) left out"
        } else if let range, omitted > 0 {
            window = "\(kept) of \(all): only \(range); \(omitted) outside it left out"
        }
        var report = Report(
            file: stats.file, format: info.format, linkType: "\(info.linkType) (\(info.linkTypeName))",
            records: stats.records,
            recordsByKind: RecordKind.allCases.compactMap { k in stats.recordsByKind[k].map { (k.name, $0) } },
            truncatedRecords: stats.truncatedRecords, firstTime: stats.firstTime, lastTime: stats.lastTime,
            captureInformation: info.notes + stats.captureNotes,
            connections: Report.Connections(connections, names: names, origin: origin), accessories: stats.accessories,
            services: Self.services(gatt), streams: streamOrder.compactMap { streams[$0] },
            diagnostics: groups.values.sorted { ($0.severity.rawValue, $1.id) > ($1.severity.rawValue, $0.id) },
            commands: stats.commandRows, rows: rows, messages: messages, events: events, omittedEvents: omitted,
            window: window, bucketSeconds: bucketSeconds,
            series: streamOrder.compactMap { k in series[k].map { (seriesLabel(k), $0) } },
            undecodedBytes: stats.undecodedBytes, redacted: false)
        report.advertisers = advertisers.sorted.map(Report.Advertiser.init)
        report.advertisersNotListed = Report.AdvertisersNotListed(advertisers)
        report.isRange = options.range != nil
        report.definitions = options.redact ? options.definitions?.redacted : options.definitions
        report.filter = options.filter
        report.appLogs = appLogs.map { a in
            var a = a
            a.lines = linesBySource[a.source] ?? 0
            return a
        }
        report.logLines = logLines
        if options.redact { Redactor(report, deviceNames: deviceNames, addresses: deviceAddresses).apply(&report) }
        return report
    }

    static func services(_ gatt: GATTStore) -> [Report.Service] {
        gatt.all.filter(\.key.serverIsPeer).flatMap { key, db -> [Report.Service] in
            let server: String
            switch key.peer {
            case .address(let a): server = a.description
            case .connection(let c): server = "connection \(Hex.value(c.handle, width: 4))"
            }
            return db.services.map { s in
                let chars = db.characteristics.values.filter { $0.valueHandle >= s.start && $0.valueHandle <= s.end }
                    .sorted { $0.valueHandle < $1.valueHandle }
                    .map { (handle: $0.valueHandle, uuid: $0.uuid.description, name: GATTNames.name($0.uuid)) }
                return Report.Service(
                    server: server, uuid: s.uuid.description, name: GATTNames.name(s.uuid), characteristics: chars)
            }
        }
    }
}
