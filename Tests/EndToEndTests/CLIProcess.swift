import Foundation
import XCTest

/// What the built CLI did when run as a separate process.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the btlens built beside this test bundle, as a user's shell would. A run past `timeout`
/// seconds is killed (SIGKILL), so a hang fails its test instead of stalling the suite.
/// With `stdout` a path (`/dev/full`), standard output goes there and `CLIRun.stdout` is empty.
/// With `memoryLimit` (bytes), the shell's `ulimit -v` bounds btlens' address space, so a run that
/// would grow past it fails instead of taking the machine (Linux; macOS does not enforce it).
func runCLI(
    _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Double = 120,
    cwd: String? = nil, stdout stdoutPath: String? = nil, memoryLimit: Int? = nil
) throws -> CLIRun {
    let binary = try builtBtlens()
    guard let memoryLimit else {
        return try runProcess(
            binary, arguments, environment: environment, stdin: stdin, timeout: timeout, cwd: cwd, stdout: stdoutPath)
    }
    let limited = ["-c", "ulimit -v \(memoryLimit / 1024) && exec \"$0\" \"$@\"", binary] + arguments
    return try runProcess(
        "/bin/sh", limited, environment: environment, stdin: stdin, timeout: timeout, cwd: cwd, stdout: stdoutPath)
}

/// The path of the btlens built beside this test bundle; the test is skipped without it.
func builtBtlens() throws -> String {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "btlens")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw XCTSkip("btlens is not built beside the tests")
    }
    return binary.path
}

/// Runs `executable` (btlens, or a shell that ends in `exec` btlens, so the process killed after
/// `timeout` seconds is btlens), its stdout and stderr kept unless `stdout` names a path.
func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
    timeout: Double, cwd: String? = nil, stdout stdoutPath: String? = nil
) throws -> CLIRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    if let stdin { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin)) }
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    // stderr goes to a file: two pipes read one after the other could block on the second filling up.
    let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let out = Pipe()
    let err = try FileHandle(forWritingTo: errURL)
    if let stdoutPath {
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
    } else {
        process.standardOutput = out
    }
    process.standardError = err
    try process.run()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    let stdout = stdoutPath == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    process.waitUntilExit()
    try err.close()
    let stderr = try Data(contentsOf: errURL)
    return CLIRun(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}

/// Runs tshark, if installed, and returns its output lines (its stderr is dropped); nil without it.
func runTshark(_ arguments: [String]) throws -> [String]? {
    guard
        let path = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: FileManager.default.isExecutableFile)
    else { return nil }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}
