import BTLensTestSupport
import Foundation
import XCTest

/// What a user of Unix tools expects without reading the help: `-` for standard input and output,
/// `help` that refuses what does not exist, and messages that name what they are about.
final class CLIHabitsTests: XCTestCase {
    static let captures = JSONContractTests.root.appendingPathComponent("Captures").path
    static let session = captures + "/ble_a5_session.btsnoop"

    /// Runs `script` in bash with the built btlens as $0: for pipes between two commands.
    func shell(_ script: String, _ arguments: [String] = []) throws -> (status: Int32, stdout: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("btlens").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; " + script, binary] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testDashReadsTheCaptureFromStandardInputInEveryCommand() throws {
        let fromFile = try runCLI(["timeline", "--format", "jsonl", Self.session])
        let fromStdin = try runCLI(["timeline", "--format", "jsonl", "-"], stdin: Self.session)
        XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
        XCTAssertEqual(fromStdin.stdout, fromFile.stdout)
        let stats = try runCLI(["stats", "-"], stdin: Self.session)
        XCTAssertEqual(stats.status, 0, stats.stderr)
        XCTAssertTrue(stats.stdout.hasPrefix("File:        -\n"), stats.stdout)
        XCTAssertEqual(
            stats.stdout.split(separator: "\n").dropFirst(),
            try runCLI(["stats", Self.session]).stdout.split(separator: "\n").dropFirst())
        let report = try runCLI(["report", "-", "-o", "-", "--format", "md"], stdin: Self.session)
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.hasPrefix("# btlens report: -\n"), report.stdout)
        let both = try runCLI(["diff", "-", "-"], stdin: Self.session)
        XCTAssertEqual(both.status, 2, "standard input holds one capture")
        let diff = try runCLI(["diff", "-", Self.session], stdin: Self.session)
        XCTAssertEqual(diff.status, 0, diff.stderr)
        XCTAssertTrue(diff.stdout.hasPrefix("before: - (58 records"), diff.stdout)
        // pcap from a pipe goes to libpcap through a pipe of its own.
        let pcap = try shell(#""$0" convert "$1" -o - --format pcap | "$0" timeline --format jsonl -"#, [Self.session])
        XCTAssertEqual(pcap.status, 0)
        XCTAssertEqual(pcap.stdout.split(separator: "\n").count, fromFile.stdout.split(separator: "\n").count)
    }

    func testDashAsTheOutputIsStandardOutputAndTheSummaryGoesToStderr() throws {
        let report = try runCLI(["report", Self.session, "-o", "-"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.hasPrefix("<!doctype html>"), String(report.stdout.prefix(40)))
        XCTAssertTrue(report.stderr.hasPrefix("btlens: report: html report, "), report.stderr)
        let diff = try runCLI(["diff", Self.session, Self.session, "-o", "-", "--format", "json"])
        XCTAssertEqual(diff.status, 0, diff.stderr)
        XCTAssertTrue(diff.stdout.hasPrefix(#"{"before":"#), diff.stdout)
        let convert = try shell(
            #""$0" convert "$1" -o - --format btsnoop 2>/dev/null | "$0" stats - | tail -n +2"#,
            [
                Self.session
            ])
        XCTAssertEqual(convert.status, 0)
        let original = try runCLI(["stats", Self.session]).stdout.split(separator: "\n").dropFirst()
        XCTAssertEqual(convert.stdout.split(separator: "\n")[...].prefix(3), original.prefix(3))
        let folder = try runCLI(["report", Self.captures, "-o", "-"])
        XCTAssertEqual(folder.status, 2, "a folder's reports cannot all go to standard output")
    }

    func testWhatReadsTheCaptureTwiceRefusesStandardInput() throws {
        let run = try runCLI(["timeline", "--summary", "-"], stdin: Self.session)
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(
            run.stderr,
            "btlens: --summary reads the capture twice, which standard input cannot give: save it to a file first\n")
        let member = try runCLI(["stats", "--member", "x", "-"], stdin: Self.session)
        XCTAssertEqual(member.status, 2, member.stderr)
    }

    /// A folder is not a file to read, for `timeline` as for `convert` and `diff`: exit status 1.
    func testATimelineOfAFolderCannotOpenIt() throws {
        for arguments in [["timeline", Self.captures], [Self.captures], ["timeline", "--summary", Self.captures]] {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: 1 << 30)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertTrue(
                run.stderr.hasPrefix(
                    "btlens: cannot open \(Self.captures): a folder, not a file (a timeline is of one capture; "),
                "\(arguments): \(run.stderr)")
        }
    }

    func testHelpForNoSubcommandIsAUsageError() throws {
        let run = try runCLI(["help", "NOPE"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.hasPrefix("btlens: help: no subcommand 'NOPE' (subcommands: timeline, "), run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(try runCLI(["help", "stats"]).status, 0)
    }

    func testTheExportShowsItsRequiredFlag() throws {
        let help = try runCLI(["dissectors", "export", "--help"])
        XCTAssertTrue(help.stdout.contains("USAGE: btlens dissectors export --wireshark "), help.stdout)
        let missing = try runCLI(["dissectors", "export", "-o", "-"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("--wireshark"), missing.stderr)
    }

    func testAMissingDefinitionsFolderIsSaidAsMissing() throws {
        for command in [["timeline", Self.session], ["convert", Self.session, "-o", "-", "--format", "pcap"]] {
            let run = try runCLI(command + ["--dissectors", "/nonexistent/defs"])
            XCTAssertEqual(run.status, 2, "\(command)")
            XCTAssertEqual(run.stderr, "btlens: /nonexistent/defs: no such folder or file of dissector definitions\n")
        }
    }

    func testMemberWithACaptureThatIsNoZipIsAUsageError() throws {
        let run = try runCLI(["stats", Self.session, "--member", "x"])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "btlens: \(Self.session): --member applies to a bugreport .zip\n")
    }

    func testAMemberThatIsNoCaptureIsNamed() throws {
        let zip = BugreportZip.make([
            (
                "FS/data/misc/bluetooth/logs/btsnoop_hci.log",
                Array(try Data(contentsOf: URL(fileURLWithPath: Self.session))), true
            ),
            ("notes.txt", Array("hello\n".utf8), true),
        ])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-member-\(getpid()).zip")
        try Data(zip).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let run = try runCLI(["stats", url.path, "--member", "notes.txt"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("btlens: \(url.path): zip: member notes.txt: text: "), run.stderr)
    }
}

/// A connection whose handle connects again with no disconnection seen ended there: it is not
/// still open, and what comes after on the handle is the new one's.
final class ReplacedConnectionTests: XCTestCase {
    func testAReplacedConnectionEndsWhereItsHandleConnectsAgain() throws {
        var s = LESession()
        s.connect(handle: 0x0041, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        let firstATT = s.att(handle: 0x0041, .sent, [0x02, 0x17, 0x00])
        s.connect(handle: 0x0041, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        let reopened = s.lastRecord
        let secondATT = s.att(handle: 0x0041, .sent, [0x02, 0x17, 0x00])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("replaced-\(UUID().uuidString).btsnoop")
        try Data(s.bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let run = try runCLI(["stats", url.path, "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.count, 2)
        XCTAssertEqual(connections[0]["replaced"] as? Bool, true)
        XCTAssertEqual(connections[0]["closed_record"] as? Int, reopened)
        XCTAssertEqual(connections[0]["first_att_record"] as? Int, firstATT)
        XCTAssertEqual(connections[1]["replaced"] as? Bool, false)
        XCTAssertEqual(connections[1]["first_att_record"] as? Int, secondATT)
        let text = try runCLI(["stats", url.path]).stdout
        XCTAssertTrue(
            text.contains("#3 → #\(reopened) (replaced: its handle connected again, no disconnection seen)"), text)
    }
}
