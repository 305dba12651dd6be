import BTLensCore
import BTLensDissect

/// Watches a capture's events for what `stats` does not keep: where each diagnostic first
/// appeared, the sequence of named frames, and the strings a device says it is.
/// Bounded: `sequenceLimit` steps, one record per diagnostic id, `identityLimit` strings.
public final class SummaryRecorder {
    public static let sequenceLimit = 512
    public static let identityLimit = 256

    public private(set) var firstRecords: [String: Int] = [:]
    public private(set) var sequence: [CaptureSummary.Step] = []
    public private(set) var identity: [String: String] = [:]
    /// Frames no dissector named, by framing and command: compared by their numbers (at most
    /// `CommandStats.limit`).
    public private(set) var unnamed: [CaptureSummary.Command] = []
    private var unnamedIndex: [String: Int] = [:]

    public init() {}

    public func event(_ e: Event) {
        switch e.body {
        case .diagnostic(let d):
            if firstRecords[d.id] == nil { firstRecords[d.id] = e.record }
        case .frame(let f):
            guard f.hasCommand else { return }
            let command = f.frame.command
            let direction = e.direction ?? .sent
            // Without a definition a frame is still its framing's, with a number: counted by it.
            let dissector = f.dissector ?? f.framing ?? "a5"
            if f.dissector == nil { countUnnamed(dissector, command, direction) }
            guard sequence.count < Self.sequenceLimit else { return }
            sequence.append(
                CaptureSummary.Step(
                    record: e.record, direction: direction, dissector: dissector,
                    label: f.messageName ?? Hex.value(command, width: command > 0xff ? 4 : 2)))
        case .att(let a):
            // Device Information strings, read whole (Core Spec Supplement: UTF-8 strings).
            guard a.opcode == .readResponse, !a.truncated, let uuid = a.uuid?.sig16,
                let name = Self.deviceInformation[uuid], let value = a.value
            else { return }
            remember("device information \(name)", String(decoding: value, as: UTF8.self))
        case .gattValue(let v):
            guard v.kind == .longRead, let uuid = v.uuid?.sig16, let name = Self.deviceInformation[uuid] else { return }
            remember("device information \(name)", String(decoding: v.value, as: UTF8.self))
        case .iap2Identification(let i):
            for (what, value) in [
                ("name", i.name), ("model", i.model), ("manufacturer", i.manufacturer), ("serial", i.serial),
                ("firmware", i.firmware), ("hardware", i.hardware),
            ] where !value.isEmpty {
                remember("iAP2 \(what)", value)
            }
            if !i.protocols.isEmpty { remember("iAP2 EA protocols", i.protocols.map(\.name).joined(separator: ", ")) }
        default:
            break
        }
    }

    private func countUnnamed(_ framing: String, _ command: UInt16, _ direction: Direction) {
        let key = CaptureSummary.key(framing, command)
        let i: Int
        if let known = unnamedIndex[key] {
            i = known
        } else {
            guard unnamed.count < CommandStats.limit else { return }
            i = unnamed.count
            unnamedIndex[key] = i
            unnamed.append(CaptureSummary.Command(dissector: framing, command: command))
        }
        if direction == .sent { unnamed[i].sent += 1 } else { unnamed[i].received += 1 }
    }

    private func remember(_ key: String, _ value: String) {
        guard identity[key] != nil || identity.count < Self.identityLimit else { return }
        identity[key] = value
    }

    /// Device Information Service characteristics (0x180A) whose values are strings.
    static let deviceInformation: [UInt16: String] = [
        0x2a24: "model", 0x2a25: "serial", 0x2a26: "firmware", 0x2a27: "hardware", 0x2a28: "software",
        0x2a29: "manufacturer",
    ]
}

extension CaptureSummary {
    /// A capture's summary from what `stats` and the recorder kept, and the analyzer's connections
    /// and advertisers.
    public init(
        stats: StatsCollector, recorder: SummaryRecorder, connections: [ConnectionInfo],
        advertisers: AdvertisingTable, gatt: GATTStore
    ) {
        self.init(file: stats.file)
        if let sources = stats.definitions {
            // Without definitions, frames are counted by number: say so where the reader looks.
            let none = sources.disabled || sources.folders.allSatisfy(\.files.isEmpty)
            definitions =
                sources.summary
                + (none ? "; no definitions: commands are compared by number, without names, pairing or latency" : "")
        }
        filter = stats.filter?.expression
        records = stats.records
        firstTime = stats.firstTime
        lastTime = stats.lastTime
        for (key, e) in stats.commands.sorted {
            commands[Self.key(key.dissector, key.command)] = Command(
                dissector: key.dissector, command: key.command, name: e.name, sent: e.sent, received: e.received,
                answered: e.answered, unanswered: e.unanswered, latency: Self.latency(e))
        }
        for (id, (severity, count)) in stats.diagnostics {
            diagnostics[id] = DiagnosticCount(severity: severity, count: count, firstRecord: recorder.firstRecords[id])
        }
        for c in recorder.unnamed { commands[Self.key(c.dissector, c.command)] = c }
        // A peer connected to several times: the facts of the last connection, and how many there were.
        var count: [String: Int] = [:]
        for c in connections {
            let peer = Self.peer(c)
            count[peer, default: 0] += 1
            self.connections[peer, default: [:]].merge(Self.facts(c)) { $1 }
            self.connections[peer]?["connections"] = "\(count[peer] ?? 1)"
        }
        identity = recorder.identity
        for d in advertisers.devices.values { if let name = d.name { identity["advertised name \(d.address)"] = name } }
        sequence = recorder.sequence
        for (key, database) in gatt.all {
            let server = key.serverIsPeer ? Self.name(key.peer) : "\(Self.name(key.peer)) (the phone's server)"
            self.gatt[server, default: [:]].merge(Self.entries(database)) { $1 }
        }
    }

    static func name(_ peer: PeerID) -> String {
        switch peer {
        case .address(let a): return "\(a)"
        case .connection(let k): return "connection \(Hex.value(k.handle, width: 4))"
        }
    }

    /// A database as `service 180f`, `characteristic 180f/2a19`, `descriptor 180f/2a19/2902` →
    /// handles and properties: compared by what they are, so a moved handle is a change, not a
    /// removal and an addition. Several of one UUID in a service are told apart by their order.
    static func entries(_ db: GATTDatabase) -> [String: String] {
        var out: [String: String] = [:]
        func add(_ key: String, _ value: String) {
            var k = key
            var n = 1
            while out[k] != nil {
                n += 1
                k = "\(key) #\(n)"
            }
            out[k] = value
        }
        let service = { (h: UInt16) in db.service(containing: h).map { "\($0.uuid)" } ?? "?" }
        for s in db.services {
            add("service \(s.uuid)", "handles \(Hex.value(s.start, width: 4))–\(Hex.value(s.end, width: 4))")
        }
        for c in db.characteristics.values.sorted(by: { $0.valueHandle < $1.valueHandle }) {
            add(
                "characteristic \(service(c.valueHandle))/\(c.uuid)",
                "handle \(Hex.value(c.valueHandle, width: 4)), properties \(Hex.value(c.properties, width: 2))")
        }
        for (handle, uuid) in db.attributes.sorted(by: { $0.key < $1.key }) {
            let owner = db.characteristic(owning: handle).map { "\($0.uuid)" } ?? "?"
            add("descriptor \(service(handle))/\(owner)/\(uuid)", "handle \(Hex.value(handle, width: 4))")
        }
        return out
    }

    static func latency(_ e: CommandStats.Entry) -> Latency? {
        guard e.answered > 0 else { return nil }
        let at = { CommandStats.percentile(e, $0) }
        return Latency(
            count: e.answered, min: at(0), p25: at(25), median: at(50), p75: at(75), p95: at(95), max: at(100))
    }

    static func peer(_ c: ConnectionInfo) -> String {
        c.address.map { "\($0)" } ?? "connection \(Hex.value(c.key.handle, width: 4))"
    }

    /// What a connection was, as names and values that compare as text.
    static func facts(_ c: ConnectionInfo) -> [String: String] {
        let l = c.lifecycle
        var f = ["transport": c.transport.rawValue, "role": c.role.rawValue]
        if let p = l.parameters {
            f["interval"] = MessageValue.number(Double(p.intervalMicroseconds) / 1000) + " ms"
            f["latency"] = "\(p.latency)"
            f["timeout"] = "\(p.timeoutMilliseconds) ms"
        }
        if let p = l.phy { f["PHY"] = "\(ConnectionSummary.phy(p.tx))/\(ConnectionSummary.phy(p.rx))" }
        if let d = l.dataLength { f["data length"] = "\(d.tx)/\(d.rx)" }
        if let m = c.attMTU {
            f["ATT MTU"] = "\(m.value)\(m.isDefault ? " (default)" : "")"
        } else if c.inferred && c.transport == .le {
            f["ATT MTU"] = "unknown"
        }
        f["encrypted"] = l.encrypted ? "yes" : "no"
        if l.pairingStarted != nil {
            f["pairing"] = l.pairingFailure.map { "failed: \($0.reason.name)" } ?? l.pairingMethod ?? "yes"
        }
        if !l.subscriptions.isEmpty {
            f["subscriptions"] = l.subscriptions.map { s in
                "\(s.uuid.map { "\($0)" } ?? Hex.value(s.valueHandle, width: 4)) \(s.kind.rawValue)"
            }.sorted().joined(separator: ", ")
        }
        // A firmware that changes the A2DP codec (AAC to SBC, a bitpool) shows here.
        if !l.audioStreams.isEmpty {
            f["audio codec"] = l.audioStreams.map { "SEID \($0.seid) \($0.codec ?? "?")" }.joined(separator: ", ")
        }
        f["ended"] =
            c.replaced ? "replaced" : c.closedRecord == nil ? "still open" : (c.disconnectReason?.name ?? "closed")
        return f
    }
}
