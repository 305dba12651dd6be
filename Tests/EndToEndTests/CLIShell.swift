import Foundation
import XCTest

/// Runs `script` in bash, for what only a shell makes (`<(cat FILE)`, a pipe as standard input),
/// with `$BTLENS` the btlens built beside this test bundle. The script should end in
/// `exec "$BTLENS" …`, so that btlens is the process the timeout kills; `ulimit -v` bounds its
/// address space with `memoryLimit` (bytes), as `runCLI` does.
func runCLIInBash(_ script: String, timeout: Double = 30, memoryLimit: Int? = nil) throws -> CLIRun {
    let arguments = ["-c", (memoryLimit.map { "ulimit -v \($0 / 1024) && " } ?? "") + script]
    return try runProcess("/bin/bash", arguments, environment: ["BTLENS": try builtBtlens()], timeout: timeout)
}

/// A path quoted for the shell.
func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
