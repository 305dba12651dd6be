import BTLensTestSupport
import Foundation
import XCTest

/// Every command that writes says the first write that failed and exits 1: small outputs (left in
/// stdio's and libpcap's buffers until the end), output files on a full disk or past `ulimit -f`,
/// and a standard output that was closed. Each run is bounded: 30 s, 1 GiB of address space.
final class OutputFailureTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path
    static let session = captures + "/ble_a5_session.btsnoop"
    static let firmware = [captures + "/ble_firmware_before.btsnoop", captures + "/ble_firmware_after.btsnoop"]
    static let memoryLimit = 1 << 30

    /// The commands that write to standard output, all but the Lua plugin with a small output.
    static let toStandardOutput: [[String]] = [
        ["timeline", session], ["timeline", session, "--format", "jsonl"], ["stats", session],
        ["stats", session, "--format", "json"], ["diff"] + firmware, ["diff"] + firmware + ["--format", "json"],
        ["report", session, "-o", "-", "--format", "txt"], ["diagnostics"], ["dissectors", "list"],
        ["dissectors", "check", packageRoot.appendingPathComponent("Dissectors").path],
        ["convert", session, "-o", "-", "--format", "pcap"], ["convert", session, "-o", "-", "--format", "pcapng"],
        ["convert", session, "-o", "-", "--format", "btsnoop"], ["formats"],
        ["dissectors", "export", "--wireshark", "-o", "-"],
    ]

    func testSmallOutputsToAFullDiskExitOne() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        for arguments in Self.toStandardOutput {
            let run = try runCLI(arguments, timeout: 30, stdout: "/dev/full", memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(
                run.stderr, "btlens: cannot write to standard output: No space left on device\n", "\(arguments)")
        }
    }

    func testOutputFilesOnAFullDiskExitOne() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        let commands: [[String]] = [
            ["convert", Self.session, "-o", "/dev/full", "--format", "pcapng"],
            ["convert", Self.session, "-o", "/dev/full", "--format", "pcap"],
            ["convert", Self.session, "-o", "/dev/full", "--format", "btsnoop"],
            ["report", Self.session, "-o", "/dev/full", "--format", "txt"],
            ["diff"] + Self.firmware + ["-o", "/dev/full", "--format", "json"],
            ["dissectors", "export", "--wireshark", "-o", "/dev/full"],
        ]
        for arguments in commands {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stdout, "", "\(arguments)")
            XCTAssertEqual(run.stderr, "btlens: cannot write to /dev/full: No space left on device\n", "\(arguments)")
        }
    }

    /// `>&-`: no file btlens opens takes fd 1, and what it would print is an error.
    func testAClosedStandardOutputExitsOne() throws {
        for arguments in Self.toStandardOutput {
            let run = try runInShell(arguments, redirect: ">&-")
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(
                run.stderr, "btlens: cannot write to standard output: Bad file descriptor\n", "\(arguments)")
        }
        // The report is written whole; the line that says so cannot be.
        let out = NSTemporaryDirectory() + "btlens-closed-\(UUID().uuidString).txt"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let run = try runInShell(["report", Self.session, "-o", out], redirect: ">&-")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "btlens: cannot write to standard output: Bad file descriptor\n")
        let report = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(report.hasPrefix("btlens report"), String(report.prefix(80)))
        XCTAssertFalse(report.contains("\(out): txt report"))
    }

    /// The store's commands say what they wrote on standard output: a line that cannot be written.
    func testTheStoreCommandsWithAClosedStandardOutputExitOne() throws {
        let folder = NSTemporaryDirectory() + "btlens-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let commands: [[String]] = [
            ["index", "--db", folder + "/s.sqlite", Self.session],
            ["export", "--dataset", folder + "/d", Self.session],
            ["query", "--db", folder + "/s.sqlite", "SELECT count(*) FROM frames"],
        ]
        for arguments in commands {
            let run = try runInShell(arguments, redirect: ">&-")
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(
                run.stderr, "btlens: cannot write to standard output: Bad file descriptor\n", "\(arguments)")
        }
    }

    /// `ulimit -f 2` (1 KiB in dash's 512-byte blocks): the write past it fails with EFBIG, said,
    /// instead of SIGXFSZ ending btlens with a file cut short and no word.
    func testAFileSizeLimitExitsOneSayingSo() throws {
        let folder = NSTemporaryDirectory() + "btlens-fsize-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let audio = Self.captures + "/bredr_headphone_audio.btsnoop"
        let commands: [(arguments: [String], output: String)] = [
            (["convert", audio, "-o", folder + "/a.pcapng"], folder + "/a.pcapng"),
            (["convert", audio, "-o", folder + "/a.pcap"], folder + "/a.pcap"),
            (["convert", audio, "-o", folder + "/a.btsnoop"], folder + "/a.btsnoop"),
            (["report", audio, "-o", folder + "/a.html"], folder + "/a.html"),
            (["convert", audio, "-o", "-", "--format", "pcapng"], "standard output"),
            (["timeline", audio, "--format", "jsonl"], "standard output"),
        ]
        for (arguments, output) in commands {
            let run = try runInShell(arguments, setup: "ulimit -f 2", redirect: ">\(folder)/stdout")
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stderr, "btlens: cannot write to \(output): File too large\n", "\(arguments)")
        }
        // follow --write: the kept file's failure is said once the input ends, not a count of records kept.
        let follow = try runInShell(
            ["follow", "-", "--write", folder + "/k.pcapng"], setup: "ulimit -f 2",
            redirect: "<'\(audio)' >/dev/null")
        XCTAssertEqual(follow.status, 1)
        XCTAssertTrue(
            follow.stderr.hasSuffix("\nbtlens: cannot write to \(folder)/k.pcapng: File too large\n"), follow.stderr)
        XCTAssertFalse(follow.stderr.contains("records kept"), follow.stderr)
    }

    /// Runs btlens through /bin/sh: `setup` before it (`ulimit -f 2`), `redirect` on it (`>&-`), its
    /// stderr kept, its stdout (unless redirected) dropped. Killed after 30 s.
    func runInShell(_ arguments: [String], setup: String = ":", redirect: String) throws -> CLIRun {
        let script = "ulimit -v \(Self.memoryLimit / 1024) && \(setup) && exec \"$0\" \"$@\" \(redirect)"
        return try runProcess(
            "/bin/sh", ["-c", script, try builtBtlens()] + arguments, timeout: 30, stdout: "/dev/null")
    }
}
