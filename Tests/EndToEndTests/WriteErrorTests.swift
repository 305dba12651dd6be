import BTLensTestSupport
import Foundation
import XCTest

/// A write error is an error: output lost to a full disk exits 1 with the reason on stderr, in
/// every command that writes to standard output; a reader that closes the pipe early ends btlens
/// quietly, with status 0.
final class WriteErrorTests: XCTestCase {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Captures").path

    func testAFullDiskExitsOneSayingSo() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        let file = Self.captures + "/ble_a5_session.btsnoop"
        let commands: [[String]] = [
            ["timeline", file], ["timeline", file, "--format", "jsonl"], ["stats", file],
            ["stats", file, "--format", "json"], ["diagnostics"], ["--help"], ["timeline", "--help"],
        ]
        for arguments in commands {
            let run = try runCLI(arguments, stdout: "/dev/full")
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(
                run.stderr, "btlens: cannot write to standard output: No space left on device\n", "\(arguments)")
        }
    }

    /// `| head`: the timeline is far longer than the pipe holds, and the reader stops after a line.
    func testAReaderThatClosesThePipeEndsBtlensQuietly() throws {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 1_000_000) { bytes += $0 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-head-\(getpid()).btsnoop")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("btlens").path
        let stderr = url.path + ".stderr"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: stderr) }
        for format in ["text", "jsonl"] {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = [
                "-c", "set -o pipefail; \"$0\" timeline --format \(format) \"$1\" 2>\"$2\" | head -n 1 >/dev/null",
                binary, url.path, stderr,
            ]
            try shell.run()
            shell.waitUntilExit()
            XCTAssertEqual(shell.terminationStatus, 0, format)
            XCTAssertEqual(try String(contentsOfFile: stderr, encoding: .utf8), "", format)
        }
        // What is printed through stdio (the Lua plugin is 100 KB) ends as quietly.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = [
            "-c", "set -o pipefail; \"$0\" dissectors export --wireshark -o - 2>\"$1\" | head -n 1 >/dev/null",
            binary, stderr,
        ]
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        XCTAssertEqual(try String(contentsOfFile: stderr, encoding: .utf8), "")
    }
}
