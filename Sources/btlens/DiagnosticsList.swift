import ArgumentParser
import BTLensAppLog
import BTLensDissect
import BTLensPipeline
import BTLensReport

struct DiagnosticsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnostics",
        abstract: "List every diagnostic btlens can raise: stable id, severity, meaning.")

    func run() {
        // The analyzer's, and the timeline's own line for those it counted and did not show.
        for kind
            in (Analyzer.diagnosticKinds + DiagnosticThrottle.kinds + AppLogDiagnostics.all + AppLogAirDiagnostics.all)
            .sorted(by: { $0.id < $1.id })
        {
            print("\(pad(kind.id, 38)) \(pad(kind.severity.name, 8)) \(kind.summary)")
        }
    }
}

private func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
