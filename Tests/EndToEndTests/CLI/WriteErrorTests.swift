import BTLensTestSupport
import Foundation
import XCTest

/// A write error is an error: output lost to a full disk exits 1 with the reason on stderr, in
/// every command that writes to standard output; a reader that closes the pipe early ends btlens
/// quietly, with status 0.
final class WriteErrorTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path

    func testAFullDiskExitsOneSayingSo() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        let file = Self.captures + "/ble_a5_session.btsnoop"
        // Larger than stdio's and libpcap's buffers, which say nothing of a write that failed.
        let large = try Self.benchmarkCapture()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: large) }
        let firmware = [Self.captures + "/ble_firmware_before.btsnoop", Self.captures + "/ble_firmware_after.btsnoop"]
        let commands: [[String]] = [
            ["timeline", file], ["timeline", file, "--format", "jsonl"], ["stats", file],
            ["stats", file, "--format", "json"], ["diagnostics"], ["--help"], ["timeline", "--help"],
            ["diff"] + firmware + ["--format", "html"], ["dissectors", "export", "--wireshark", "-o", "-"],
            ["report", file, "-o", "-"], ["convert", large, "-o", "-", "--format", "pcap"],
            ["convert", large, "-o", "-", "--format", "pcapng"], ["convert", large, "-o", "-", "--format", "btsnoop"],
        ]
        for arguments in commands {
            let run = try runCLI(arguments, stdout: "/dev/full")
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(
                run.stderr, "btlens: cannot write to standard output: No space left on device\n", "\(arguments)")
        }
    }

    /// A 1 MB capture of the benchmark's kind, removed when the test ends.
    static func benchmarkCapture() throws -> String {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 1_000_000) { bytes += $0 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-large-\(UUID().uuidString).btsnoop")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// `| head`: the timeline is far longer than the pipe holds, and the reader stops after a line.
    func testAReaderThatClosesThePipeEndsBtlensQuietly() throws {
        let url = URL(fileURLWithPath: try Self.benchmarkCapture())
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("btlens").path
        let stderr = url.path + ".stderr"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: stderr) }
        let commands = [
            "timeline --format text", "timeline --format jsonl", "convert -o - --format pcap",
            "convert -o - --format pcapng",
        ]
        for command in commands {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = [
                "-c", "set -o pipefail; \"$0\" \(command) \"$1\" 2>\"$2\" | head -c 100 >/dev/null",
                binary, url.path, stderr,
            ]
            try shell.run()
            shell.waitUntilExit()
            XCTAssertEqual(shell.terminationStatus, 0, command)
            XCTAssertEqual(try String(contentsOfFile: stderr, encoding: .utf8), "", command)
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
