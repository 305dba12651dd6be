import ArgumentParser
import BTLensDissect

struct DiagnosticsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnostics",
        abstract: "List every diagnostic btlens can raise: stable id, severity, meaning.")

    func run() {
        for kind in Analyzer.diagnosticKinds {
            print("\(pad(kind.id, 38)) \(pad(kind.severity.name, 8)) \(kind.summary)")
        }
    }
}

private func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
