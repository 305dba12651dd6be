import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Exit 2 for usage errors (ArgumentParser's default is 64) and 1 for unreadable input.
do {
    var command = try Btlens.parseAsRoot()
    try command.run()
} catch let failure as InputFailure {
    FileHandleStderr.write("btlens: \(failure.message)\n")
    exit(1)
} catch {
    let code = Btlens.exitCode(for: error)
    if code == .success {
        print(Btlens.fullMessage(for: error))
        exit(0)
    }
    FileHandleStderr.write("btlens: \(Btlens.fullMessage(for: error))\n")
    if code == .validationFailure {
        FileHandleStderr.write(Btlens.usageString(for: error) + "\n")
        exit(2)
    }
    exit(code.rawValue)
}

extension Btlens {
    static func usageString(for error: Error) -> String {
        "Usage: btlens [timeline|stats|diagnostics] FILE …  (see btlens --help)"
    }
}
