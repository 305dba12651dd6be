import BTLensCore
import BTLensDissect

/// The section `timeline --summary` prints before the timeline: each connection's life, every
/// diagnostic counted by severity and id with its first record, then the findings (lifecycle
/// diagnostics) with their records. Gathered in a first pass over the capture.
public final class TimelineSummary {
    /// Findings listed; beyond this they are counted.
    public static let findingLimit = 50

    public private(set) var findings: [(record: Int, diagnostic: Diagnostic)] = []
    public private(set) var findingCount = 0
    /// Per diagnostic id (declared, so a few dozen at most): its severity, how many, the first record.
    public private(set) var diagnostics: [String: (severity: Severity, count: Int, first: Int)] = [:]

    public init() {}

    public func event(_ e: Event) {
        // Lower-layer detail (the consequences of a capture condition said once) is not counted.
        guard e.isTop, case .diagnostic(let d) = e.body else { return }
        var counted = diagnostics[d.id, default: (d.severity, 0, e.record)]
        counted.count += 1
        // Events can come after later records' (a diagnostic put where its bytes began): the first is the least.
        counted.first = min(counted.first, e.record)
        diagnostics[d.id] = counted
        guard LifecycleDiagnostics.all.contains(d.kind) else { return }
        findingCount += 1
        if findings.count < Self.findingLimit { findings.append((e.record, d)) }
    }

    public func text(connections: [ConnectionInfo], advertisers: AdvertisingTable = AdvertisingTable()) -> String {
        var lines = ["Connections: \(connections.count)"]
        for c in connections { lines += ConnectionSummary.text(c) }
        lines += AdvertisingSummary.text(advertisers)
        lines += diagnosticLines()
        lines.append("Findings:    \(findingCount)")
        for (record, d) in findings {
            lines.append(
                "  #\(pad(String(record), 7)) \(pad(d.severity.name, 8)) \(d.id): \(TerminalText.safe(d.message))")
        }
        if findingCount > findings.count { lines.append("  … \(findingCount - findings.count) more in the timeline") }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// `Diagnostics: 23 (1 error, 20 warnings, 2 notes)`, then one aligned row per id, worst first.
    private func diagnosticLines() -> [String] {
        let total = diagnostics.values.reduce(0) { $0 + $1.count }
        let bySeverity = Severity.allCases.reversed().compactMap { level -> String? in
            let n = diagnostics.values.filter { $0.severity == level }.reduce(0) { $0 + $1.count }
            return n == 0 ? nil : "\(n) \(level.name)\(n == 1 ? "" : "s")"
        }
        var lines = ["Diagnostics: \(total)" + (bySeverity.isEmpty ? "" : " (\(bySeverity.joined(separator: ", ")))")]
        let rows = diagnostics.sorted { ($0.value.severity, $1.key) > ($1.value.severity, $0.key) }
        let idWidth = rows.map(\.key.count).max() ?? 0
        let countWidth = rows.map { String($0.value.count).count }.max() ?? 0
        for (id, v) in rows {
            lines.append(
                "  \(pad(v.severity.name, 8)) \(pad(id, idWidth)) \(pad(String(v.count), countWidth, right: true))  first #\(v.first)"
            )
        }
        return lines
    }

    private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
}
