import ArgumentParser
import BTLensCore
import BTLensReport

/// Exit 2 for usage errors (ArgumentParser's default is 64), 1 for unreadable input or a failed
/// write, 3 for `--fail-on`.
StandardOutput.start()
if let unknown = Btlens.unknownSubcommand(Array(CommandLine.arguments.dropFirst())) {
    FileHandleStderr.write("btlens: \(unknown)\n")
    OS.exit(2)
}
/// The subcommand parsed: a usage error it finds as it runs shows its usage, not the root's.
var parsed: any ParsableCommand.Type = Btlens.self
do {
    var command = try Btlens.parseAsRoot()
    parsed = type(of: command)
    // What was printed is written before any status is given: a run whose output was lost failed.
    do { try command.run() } catch {
        StandardOutput.flush()
        throw error
    }
    StandardOutput.flush()
} catch let failure as InputFailure {
    FileHandleStderr.write("btlens: \(failure.message)\n")
    OS.exit(1)
} catch let found as DiagnosticsFound {
    FileHandleStderr.write("btlens: \(found.message)\n")
    OS.exit(3)
} catch let failure as UsageFailure {
    FileHandleStderr.write("btlens: \(failure.message)\n")
    OS.exit(2)
} catch let failure as DefinitionFailure {
    for e in failure.errors { FileHandleStderr.write("btlens: \(TerminalText.safe("\(e)"))\n") }
    OS.exit(2)
} catch {
    let code = Btlens.exitCode(for: error)
    if code == .success {
        print(Btlens.fullMessage(for: error))
        StandardOutput.flush()
        OS.exit(0)
    }
    let message =
        (error as? ValidationError).map { Btlens.usageError($0.message, of: parsed) } ?? Btlens.fullMessage(for: error)
    if !message.isEmpty { FileHandleStderr.write("btlens: \(message)\n") }
    OS.exit(code == .validationFailure ? 2 : code.rawValue)
}
