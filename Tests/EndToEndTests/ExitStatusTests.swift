import Foundation
import XCTest
import BTLensTestSupport

/// The command line's contract with scripts and CI: exit statuses, and errors on stderr only.
/// 0 decoded (diagnostics or not), 1 not readable as a capture, 2 usage, 3 `--fail-on` reached.
final class ExitStatusTests: XCTestCase {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Captures").path

    struct Run { var status: Int32; var stdout: String; var stderr: String }

    /// Runs the btlens built beside this test bundle, in `directory` and with `environment` when given.
    func btlens(_ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) throws -> Run {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw XCTSkip("btlens is not built beside the tests") }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    func testAHealthyCaptureExitsZeroWithNothingOnStderr() throws {
        let run = try btlens(["timeline", Self.captures + "/ble_a5_session.btsnoop", "--fail-on", "note"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stderr, "")
        XCTAssertTrue(run.stdout.hasPrefix("#1 "), run.stdout)
    }

    func testDiagnosticsAloneStillExitZero() throws {
        let run = try btlens(["stats", Self.captures + "/ble_a5_faults.btsnoop"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stderr, "")
    }

    func testFailOnExitsThreeNamingTheFileAndTheWorstSeverity() throws {
        let file = Self.captures + "/ble_a5_faults.btsnoop"
        for level in ["warning", "error"] {
            let run = try btlens(["stats", file, "--fail-on", level])
            XCTAssertEqual(run.status, 3)
            XCTAssertEqual(run.stderr, "btlens: --fail-on \(level): diagnostics at that level or worse in \(file) (worst: error)\n")
            XCTAssertTrue(run.stdout.hasPrefix("File:"), "the output is still written")
        }
        XCTAssertEqual(try btlens(["timeline", Self.captures + "/ble_mid_connection.btsnoop", "--fail-on", "error"]).status, 0,
                       "notes and warnings do not reach --fail-on error")
    }

    func testAFileThatIsNoCaptureExitsOneWithTheReasonOnStderr() throws {
        let file = Self.captures + "/README.md"
        let run = try btlens(["timeline", file])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.hasPrefix("btlens: \(file): "), run.stderr)
        let missing = try btlens(["stats", "/nonexistent/capture.log"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "btlens: cannot open /nonexistent/capture.log: No such file or directory\n")
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try btlens(["timeline"]).status, 2)
        XCTAssertEqual(try btlens(["stats", Self.captures + "/ble_a5_session.btsnoop", "--fail-on", "loud"]).status, 2)
        XCTAssertEqual(try btlens(["timeline", Self.captures + "/ble_a5_session.btsnoop", "--no-such-option"]).status, 2)
    }

    func testACaptureCutShortPrintsEverythingBeforeAndNamesRecordAndOffsetOnStderr() throws {
        let run = try btlens(["timeline", Self.captures + "/cut_in_record.btsnoop", "--color", "never"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stderr, "btlens: \(Self.captures)/cut_in_record.btsnoop: record 10 at offset 363 claims 40 bytes but the file ends after 10\n")
        XCTAssertTrue(run.stdout.contains("#9 "), "the records before the damage are printed")
    }
}

import BTLensCapture
import BTLensReport

extension ExitStatusTests {
    /// The command renders on a second thread: its output is byte for byte what rendering in order gives.
    func testTheTimelineCommandPrintsWhatTheRenderersGive() throws {
        let file = Self.captures + "/bredr_iap2_ea.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        var text = TextRenderer()
        let jsonl = JSONLRenderer()
        var (expectedText, expectedJSONL) = ("", [UInt8]())
        try Pipeline.run(&reader, lowerLayers: false) { e in
            expectedText += text.render(e) ?? ""
            expectedJSONL += jsonl.render(e) ?? []
        }
        XCTAssertEqual(try btlens(["timeline", file, "--no-dissectors", "--color", "never"]).stdout, expectedText)
        XCTAssertEqual(try btlens(["timeline", file, "--no-dissectors", "--format", "jsonl"]).stdout,
                       String(decoding: expectedJSONL, as: UTF8.self))
    }
}

extension ExitStatusTests {
    /// A single capture's report is built on a second thread: the same report as built in order.
    func testTheReportCommandWritesWhatTheBuilderGives() throws {
        let file = Self.captures + "/ble_a5_faults.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        let builder = ReportBuilder(file: file, info: reader.info)
        let analyzer = try Pipeline.run(&reader, lowerLayers: false, onRecord: builder.record, onEvent: builder.event)
        let expected = ReportJSON.render(builder.finish(connections: analyzer.connectionSummaries, gatt: analyzer.gatt))
        let out = NSTemporaryDirectory() + "btlens-report-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(try btlens(["report", file, "--no-dissectors", "-o", out]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: out).map(Array.init), expected)
    }
}

extension ExitStatusTests {
    /// `stats` reads ahead on one thread and decodes on another: the same counts as in order.
    func testTheStatsCommandPrintsWhatTheCollectorGives() throws {
        let file = Self.captures + "/ble_a5_faults.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        let stats = StatsCollector(file: file, info: reader.info)
        let analyzer = try Pipeline.run(&reader, lowerLayers: false, onRecord: stats.record, onProblem: stats.problem,
                                        onEvent: stats.event)
        stats.finish(bytesRead: reader.bytesRead)
        let expected = stats.json(connections: analyzer.connectionSummaries, advertisers: analyzer.advertisers)
        XCTAssertEqual(try btlens(["stats", file, "--no-dissectors", "--format", "json"]).stdout, expected)
    }
}

extension ExitStatusTests {
    /// Connections past the history limit are counted where the list stops, not silently gone.
    func testConnectionsPastTheHistoryLimitAreCounted() throws {
        var s = LESession()
        for _ in 0..<3 {
            s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
            s.disconnect(handle: 0x40)
        }
        let path = NSTemporaryDirectory() + "btlens-history-\(UUID().uuidString).btsnoop"
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(s.bytes)))
        let run = try btlens(["stats", path, "--limit", "connection-history=1"])
        XCTAssertTrue(run.stdout.contains("Connections: 1 listed, and 2 earlier ones past --limit connection-history\n"), run.stdout)
    }
}

/// Issue 21 §9: what a new user tripped on.
extension ExitStatusTests {
    static let repository = URL(fileURLWithPath: captures).deletingLastPathComponent().path

    func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "btlens-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    /// `btlens FILE` is the timeline, so a word that is no file and no subcommand is a mistyped subcommand.
    func testAMistypedSubcommandIsSaidWithTheNearestOne() throws {
        let run = try btlens(["stat", Self.captures + "/ble_a5_session.btsnoop"])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.hasPrefix("btlens: unknown subcommand 'stat'; did you mean 'stats'?"), run.stderr)
        // A file is still the timeline's, and a missing one is said as such.
        XCTAssertEqual(try btlens([Self.captures + "/ble_a5_session.btsnoop"]).status, 0)
        XCTAssertEqual(try btlens(["missing.log"]).stderr, "btlens: cannot open missing.log: No such file or directory\n")
    }

    func testHelpListsEveryExitStatus() throws {
        let help = try btlens(["--help"]).stdout
        for status in ["0  the input was read", "1  the input could not be read", "2  usage error", "3  --fail-on"] {
            XCTAssertTrue(help.contains(status), "\(status) in \(help)")
        }
    }

    func testStatsOverAFolderExitsOneNamingTheFilesThatCouldNotBeRead() throws {
        let folder = try temporaryFolder()
        try FileManager.default.copyItem(atPath: Self.captures + "/ble_a5_session.btsnoop", toPath: folder + "/a.btsnoop")
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: folder + "/b.log"))
        let run = try btlens(["stats", folder])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("File:        \(folder)/a.btsnoop\n"), "the readable file's stats are printed")
        XCTAssertTrue(run.stderr.hasSuffix("btlens: 1 of 2 files could not be read: \(folder)/b.log\n"), run.stderr)
        let report = try btlens(["report", folder, "-o", folder + "/out", "--format", "txt"])
        XCTAssertEqual(report.status, 1)
        XCTAssertTrue(report.stderr.hasSuffix("btlens: 1 of 2 files could not be read: \(folder)/b.log\n"), report.stderr)
    }

    func testAReportWithARangeSaysItKeptOnlyTheRange() throws {
        let out = try temporaryFolder() + "/r.txt"
        let run = try btlens(["report", Self.captures + "/ble_a5_faults.btsnoop", "-o", out, "--from", "5", "--to", "10"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.hasSuffix("timeline: 16 of 57 events: only records #5 to #10 (--from/--to); 41 outside it left out\n"), run.stdout)
        XCTAssertFalse(try String(contentsOfFile: out, encoding: .utf8).contains("on each side of every diagnostic"))
    }
}
