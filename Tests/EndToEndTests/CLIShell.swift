import Foundation
import XCTest

/// Runs `script` in bash, for what only a shell makes (`<(cat FILE)`, a pipe as standard input),
/// with `$BTLENS` the btlens built beside this test bundle. The script should end in
/// `exec "$BTLENS" …`, so that btlens is the process the timeout kills; `ulimit -v` bounds its
/// address space with `memoryLimit` (bytes), as `runCLI` does.
func runCLIInBash(_ script: String, timeout: Double = 30, memoryLimit: Int? = nil) throws -> CLIRun {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "btlens")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw XCTSkip("btlens is not built beside the tests")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", (memoryLimit.map { "ulimit -v \($0 / 1024) && " } ?? "") + script]
    process.environment = ProcessInfo.processInfo.environment.merging(["BTLENS": binary.path]) { $1 }
    let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let out = Pipe()
    let err = try FileHandle(forWritingTo: errURL)
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try err.close()
    return CLIRun(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
}

/// A path quoted for the shell.
func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
