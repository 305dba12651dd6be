import BTLensCore
import BTLensDissect

/// The section `timeline --summary` prints before the timeline: each connection's life, then the
/// findings (lifecycle diagnostics) with their records. Gathered in a first pass over the capture.
public final class TimelineSummary {
    /// Findings listed; beyond this they are counted.
    public static let findingLimit = 50

    public private(set) var findings: [(record: Int, diagnostic: Diagnostic)] = []
    public private(set) var findingCount = 0

    public init() {}

    public func event(_ e: Event) {
        guard case .diagnostic(let d) = e.body, LifecycleDiagnostics.all.contains(d.kind) else { return }
        findingCount += 1
        if findings.count < Self.findingLimit { findings.append((e.record, d)) }
    }

    public func text(connections: [ConnectionInfo], advertisers: AdvertisingTable = AdvertisingTable()) -> String {
        var lines = ["Connections: \(connections.count)"]
        for c in connections { lines += ConnectionSummary.text(c) }
        lines += AdvertisingSummary.text(advertisers)
        lines.append("Findings:    \(findingCount)")
        for (record, d) in findings {
            lines.append("  #\(String(record).padding(toLength: 7, withPad: " ", startingAt: 0)) \(d.severity.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(d.id): \(TerminalText.safe(d.message))")
        }
        if findingCount > findings.count { lines.append("  … \(findingCount - findings.count) more in the timeline") }
        return lines.joined(separator: "\n") + "\n\n"
    }
}
