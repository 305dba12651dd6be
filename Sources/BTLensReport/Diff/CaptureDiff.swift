import BTLensCore
import BTLensDissect

/// What changed from one capture of an app and accessory to another, aligned by meaning: commands
/// by dissector and command, diagnostics by id, connections by peer, identity by name, and the
/// command sequence by the order of named frames. Only what differs is listed.
public struct CaptureDiff: Sendable {
    public struct CommandRow: Sendable, Equatable {
        public var dissector: String
        public var command: UInt16
        public var name: String?
        public var before: CaptureSummary.Command?
        public var after: CaptureSummary.Command?
        public var latencyChange: LatencyChange?
    }

    /// A change in the median response time larger than either side's spread: the medians moved
    /// by more than the larger interquartile range and by more than 5 % (latencies are kept to 1 %,
    /// and identical ones have no spread at all), with at least `minimumResponses` on each side.
    public struct LatencyChange: Sendable, Equatable {
        public static let minimumResponses = 5
        public static let test =
            "median moved by more than the larger interquartile range and more than 5 % (at least 5 responses each)"
        /// Milliseconds, after minus before.
        public var change: Double
        public var spread: Double
    }

    public struct DiagnosticRow: Sendable, Equatable {
        public var id: String
        public var severity: Severity
        public var before: Int
        public var after: Int
        public var firstRecordBefore: Int?
        public var firstRecordAfter: Int?
    }

    /// A name whose value differs (nil: absent on that side).
    public struct Change: Sendable, Equatable {
        public var scope: String
        public var name: String
        public var before: String?
        public var after: String?
    }

    /// Where the order of named frames first differs, with a few steps of each side around it.
    public struct Divergence: Sendable, Equatable {
        public static let context = 3
        /// 0-based index into each side's sequence.
        public var index: Int
        public var before: [CaptureSummary.Step]
        public var after: [CaptureSummary.Step]
        /// Where each excerpt starts in its sequence.
        public var start: Int
    }

    public var before: CaptureSummary
    public var after: CaptureSummary
    public var commands: [CommandRow] = []
    public var diagnostics: [DiagnosticRow] = []
    public var connections: [Change] = []
    public var gatt: [Change] = []
    public var identity: [Change] = []
    public var sequence: Divergence?

    public var isEmpty: Bool {
        commands.isEmpty && diagnostics.isEmpty && connections.isEmpty && gatt.isEmpty && identity.isEmpty
            && sequence == nil
    }

    public init(before: CaptureSummary, after: CaptureSummary) {
        self.before = before
        self.after = after
        for key in Set(before.commands.keys).union(after.commands.keys).sorted() {
            let (b, a) = (before.commands[key], after.commands[key])
            guard let any = a ?? b else { continue }
            let change = Self.latencyChange(b?.latency, a?.latency)
            let counts = { (c: CaptureSummary.Command?) in
                [c?.sent ?? 0, c?.received ?? 0, c?.answered ?? 0, c?.unanswered ?? 0]
            }
            guard counts(b) != counts(a) || change != nil else { continue }
            commands.append(
                CommandRow(
                    dissector: any.dissector, command: any.command, name: a?.name ?? b?.name, before: b, after: a,
                    latencyChange: change))
        }
        for id in Set(before.diagnostics.keys).union(after.diagnostics.keys).sorted() {
            let (b, a) = (before.diagnostics[id], after.diagnostics[id])
            guard b?.count != a?.count, let severity = (a ?? b)?.severity else { continue }
            diagnostics.append(
                DiagnosticRow(
                    id: id, severity: severity, before: b?.count ?? 0, after: a?.count ?? 0,
                    firstRecordBefore: b?.firstRecord, firstRecordAfter: a?.firstRecord))
        }
        for peer in Set(before.connections.keys).union(after.connections.keys).sorted() {
            connections += Self.changes(peer, before.connections[peer], after.connections[peer])
        }
        for server in Set(before.gatt.keys).union(after.gatt.keys).sorted() {
            gatt += Self.changes(server, before.gatt[server] ?? [:], after.gatt[server] ?? [:])
        }
        identity = Self.changes("", before.identity, after.identity)
        sequence = Self.divergence(before.sequence, after.sequence)
    }

    static func latencyChange(_ b: CaptureSummary.Latency?, _ a: CaptureSummary.Latency?) -> LatencyChange? {
        guard let b, let a, b.count >= LatencyChange.minimumResponses, a.count >= LatencyChange.minimumResponses
        else { return nil }
        let spread = max(b.spread, a.spread)
        let change = a.median - b.median
        guard abs(change) > spread, abs(change) > 0.05 * max(a.median, b.median) else { return nil }
        return LatencyChange(change: change, spread: spread)
    }

    static func changes(_ scope: String, _ b: [String: String]?, _ a: [String: String]?) -> [Change] {
        guard b != a else { return [] }
        // A peer on one side only is one change, not one per fact.
        guard let b, let a else {
            return [
                Change(scope: scope, name: "connected", before: b == nil ? nil : "yes", after: a == nil ? nil : "yes")
            ]
        }
        return Set(b.keys).union(a.keys).sorted().compactMap { name in
            b[name] == a[name] ? nil : Change(scope: scope, name: name, before: b[name], after: a[name])
        }
    }

    static func divergence(_ b: [CaptureSummary.Step], _ a: [CaptureSummary.Step]) -> Divergence? {
        let common = zip(b, a).prefix { $0.meaning == $1.meaning }.count
        guard common < max(b.count, a.count) else { return nil }
        let start = max(0, common - Divergence.context)
        let end = common + Divergence.context + 1
        return Divergence(
            index: common, before: Array(b[start..<min(end, b.count)]), after: Array(a[start..<min(end, a.count)]),
            start: start)
    }

    /// What makes the after side worse, for `--fail-on-regression`, each cause in a line.
    public var regressions: [String] {
        var causes: [String] = []
        for d in diagnostics where d.severity >= .warning && d.before == 0 && d.after > 0 {
            causes.append("new \(d.severity.name) \(d.id): \(d.after) (first at #\(d.firstRecordAfter ?? 0))")
        }
        let unanswered = { (side: KeyPath<CommandRow, CaptureSummary.Command?>) in
            commands.reduce(0) { $0 + ($1[keyPath: side]?.unanswered ?? 0) }
        }
        if unanswered(\.after) > unanswered(\.before) {
            causes.append("unanswered requests: \(unanswered(\.before)) → \(unanswered(\.after))")
        }
        for c in commands {
            guard let change = c.latencyChange, change.change > 0 else { continue }
            causes.append(
                "\(c.label) latency median rose by \(Self.ms(change.change)) ms (spread \(Self.ms(change.spread)) ms)"
            )
        }
        return causes
    }
}

extension CaptureDiff.CommandRow {
    /// `aurora-headphones SetEQPreset (0x20)`.
    public var label: String {
        let hex = Hex.value(command, width: command > 0xff ? 4 : 2)
        return "\(dissector) " + (name.map { "\($0) (\(hex))" } ?? hex)
    }
}
