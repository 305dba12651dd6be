import ArgumentParser
import BTLensDissect
import BTLensReport

/// `--diagnostics-per-second N`: how many diagnostics of one id on one stream the timeline shows per
/// second of capture time before it counts the rest (`timeline`, `follow`; `DiagnosticThrottle`).
struct ThrottleOptions: ParsableArguments {
    // Unconditional: `-1` is taken as the value (and refused by validate), not as a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Show the first N diagnostics of an id on a stream per second of capture time, and count the rest in one '… and N more' line (0: show all). stats and report count every one.",
            valueName: "n"))
    var diagnosticsPerSecond = 20

    func validate() throws {
        guard diagnosticsPerSecond >= 0 else {
            throw ValidationError(
                "--diagnostics-per-second \(diagnosticsPerSecond): expected N >= 0 (0 shows every diagnostic)")
        }
    }

    func throttle(_ limits: Limits) -> DiagnosticThrottle {
        DiagnosticThrottle(perSecond: diagnosticsPerSecond, keyLimit: limits.diagnosticKeys)
    }
}
