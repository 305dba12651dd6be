import BTLensCapture
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// The command line's contract with scripts and CI: exit statuses, and errors on stderr only.
/// 0 decoded (diagnostics or not), 1 not readable as a capture, 2 usage, 3 `--fail-on` reached.
final class ExitStatusTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the btlens built beside this test bundle, in `directory` and with `environment` when given.
    func btlens(_ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) throws -> Run
    {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
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
            XCTAssertEqual(
                run.stderr, "btlens: --fail-on \(level): diagnostics at that level or worse in \(file) (worst: error)\n"
            )
            XCTAssertTrue(run.stdout.hasPrefix("File:"), "the output is still written")
        }
        XCTAssertEqual(
            try btlens(["timeline", Self.captures + "/ble_mid_connection.btsnoop", "--fail-on", "error"]).status, 0,
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
        XCTAssertEqual(
            try btlens(["timeline", Self.captures + "/ble_a5_session.btsnoop", "--no-such-option"]).status, 2)
        // A negative count is refused as one, not taken for a missing value.
        let negative = try btlens([
            "timeline", Self.captures + "/ble_a5_session.btsnoop", "--diagnostics-per-second", "-1",
        ])
        XCTAssertEqual(negative.status, 2)
        XCTAssertTrue(negative.stderr.contains("--diagnostics-per-second -1: expected N >= 0"), negative.stderr)
    }

    func testACaptureCutShortPrintsEverythingBeforeAndNamesRecordAndOffsetOnStderr() throws {
        let run = try btlens(["timeline", Self.captures + "/cut_in_record.btsnoop", "--color", "never"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(
            run.stderr,
            "btlens: \(Self.captures)/cut_in_record.btsnoop: record 10 at offset 363 claims 40 bytes but the file ends after 10\n"
        )
        XCTAssertTrue(run.stdout.contains("#9 "), "the records before the damage are printed")
    }
}

extension ExitStatusTests {
    /// The command renders on a second thread: its output is byte for byte what rendering in order gives.
    func testTheTimelineCommandPrintsWhatTheRenderersGive() throws {
        let file = Self.captures + "/bredr_iap2_ea.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        var text = TextRenderer()
        let jsonl = JSONLRenderer()
        var (expectedText, expectedJSONL) = ("", [UInt8]())
        // First, at the first event: which definitions were loaded (none, with --no-dissectors).
        var sources: DefinitionSources? = DefinitionSources()
        sources?.disabled = true
        try Pipeline.run(&reader, Configuration(lowerLayers: false)) { e in
            for e in [sources.take()?.note(record: e.record, timestamp: e.timestamp), e].compactMap({ $0 }) {
                expectedText += text.render(e) ?? ""
                expectedJSONL += jsonl.render(e) ?? []
            }
        }
        XCTAssertTrue(
            expectedText.hasPrefix(
                "#1           0.000000 =      - NOTE  dissectors.loaded: none (--no-dissectors): built-in dissectors only\n#1 "
            ),
            expectedText)
        XCTAssertEqual(try btlens(["timeline", file, "--no-dissectors", "--color", "never"]).stdout, expectedText)
        XCTAssertEqual(
            try btlens(["timeline", file, "--no-dissectors", "--format", "jsonl"]).stdout,
            String(decoding: expectedJSONL, as: UTF8.self))
    }
}

extension ExitStatusTests {
    /// A single capture's report is built on a second thread: the same report as built in order.
    func testTheReportCommandWritesWhatTheBuilderGives() throws {
        let file = Self.captures + "/ble_a5_faults.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        var options = ReportBuilder.Options()
        options.definitions = DefinitionSources()
        options.definitions?.disabled = true
        let builder = ReportBuilder(file: file, info: reader.info, options: options)
        let analyzer = try Pipeline.run(
            &reader, Configuration(lowerLayers: false),
            onRecord: builder.record, onEvent: builder.event)
        let expected = ReportJSON.render(builder.finish(connections: analyzer.connectionSummaries, gatt: analyzer.gatt))
        let out = NSTemporaryDirectory() + "btlens-report-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(try btlens(["report", file, "--no-dissectors", "-o", out]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: out).map(Array.init), expected)
    }

    /// A report that cannot be written says why, as convert does.
    func testAReportThatCannotBeWrittenSaysWhy() throws {
        let out = NSTemporaryDirectory() + "btlens-no-such-folder-\(UUID().uuidString)/x.html"
        let run = try btlens(["report", Self.captures + "/ble_a5_session.btsnoop", "-o", out])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("cannot write to \(out): No such file or directory"), run.stderr)
    }
}

extension ExitStatusTests {
    /// `stats` reads ahead on one thread and decodes on another: the same counts as in order.
    func testTheStatsCommandPrintsWhatTheCollectorGives() throws {
        let file = Self.captures + "/ble_a5_faults.btsnoop"
        var reader = try CaptureFormat.open(path: file)
        let stats = StatsCollector(file: file, info: reader.info)
        stats.definitions = DefinitionSources()
        stats.definitions?.disabled = true
        let analyzer = try Pipeline.run(
            &reader, Configuration(lowerLayers: false),
            onRecord: stats.record, onProblem: stats.problem, onEvent: stats.event)
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
        XCTAssertTrue(
            run.stdout.contains("Connections: 1 listed, and 2 earlier ones past --limit connection-history\n"),
            run.stdout)
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
        XCTAssertEqual(
            try btlens(["missing.log"]).stderr, "btlens: cannot open missing.log: No such file or directory\n")
    }

    func testHelpListsEveryExitStatus() throws {
        let help = try btlens(["--help"]).stdout
        for status in ["0  the input was read", "1  the input could not be read", "2  usage error", "3  --fail-on"] {
            XCTAssertTrue(help.contains(status), "\(status) in \(help)")
        }
    }

    /// A folder's file that is no capture (a README, a log) is passed over with a note; a capture that
    /// cannot be read (its header cut short) makes the run exit 1, naming it, after the others' output.
    func testStatsOverAFolderSkipsWhatIsNoCaptureAndExitsOneForWhatCouldNotBeRead() throws {
        let folder = try temporaryFolder()
        try FileManager.default.copyItem(
            atPath: Self.captures + "/ble_a5_session.btsnoop", toPath: folder + "/a.btsnoop")
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: folder + "/b.log"))
        let skipped = "btlens: note: skipped, not a capture: \(folder)/b.log: text: no BEGIN:BTSNOOP_LOG_SUMMARY block"
        let run = try btlens(["stats", folder])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.contains("File:        \(folder)/a.btsnoop\n"), "the readable file's stats are printed")
        XCTAssertFalse(run.stdout.contains("b.log"), run.stdout)
        XCTAssertTrue(run.stderr.hasPrefix(skipped), run.stderr)
        let report = try btlens(["report", folder, "-o", folder + "/out", "--format", "txt"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stderr.hasPrefix(skipped), report.stderr)
        try Data("btsnoop\0\0\0".utf8).write(to: URL(fileURLWithPath: folder + "/c.btsnoop"))
        for arguments in [["stats", folder], ["report", folder, "-o", folder + "/out2", "--format", "txt"]] {
            let cut = try btlens(arguments)
            XCTAssertEqual(cut.status, 1, "\(arguments)")
            XCTAssertTrue(
                cut.stderr.hasSuffix("btlens: 1 of 3 files could not be read: \(folder)/c.btsnoop\n"), cut.stderr)
        }
        try FileManager.default.removeItem(atPath: folder + "/a.btsnoop")
        try FileManager.default.removeItem(atPath: folder + "/c.btsnoop")
        for dir in ["out", "out2"] { try FileManager.default.removeItem(atPath: folder + "/" + dir) }
        let none = try btlens(["stats", folder])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.hasSuffix("btlens: \(folder): the folder holds no captures\n"), none.stderr)
    }

    func testAReportWithARangeSaysItKeptOnlyTheRange() throws {
        let out = try temporaryFolder() + "/r.txt"
        let run = try btlens([
            "report", Self.captures + "/ble_a5_faults.btsnoop", "-o", out, "--from", "5", "--to", "10",
        ])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(
            run.stdout.hasSuffix(
                "timeline: 16 of 57 events: only records #5 to #10 (--from/--to); 41 outside it left out\n"), run.stdout
        )
        XCTAssertFalse(try String(contentsOfFile: out, encoding: .utf8).contains("on each side of every diagnostic"))
    }
}

/// Issue 21 §6 and §9: definitions, and output that depended on the folder btlens runs in.
extension ExitStatusTests {
    func testDissectorsCheckSaysEveryErrorOfAFile() throws {
        let file = try temporaryFolder() + "/broken.yaml"
        try Data(
            "protocol: tt\ntitel: x\nmessages:\n  - {id: 1, name: A, from: watch}\n  - {id: 2, name: B, seq: [{id: a, type: u5}]}\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: file))
        let run = try btlens(["dissectors", "check", file])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.stdout,
            """
            \(file):2: unknown key 'titel' in the definition; expected one of: protocol, title, endian, bind, framing, flags, enums, protobufs, types, messages, pairing, examples
            \(file):4: message A from: 'watch'; expected phone or accessory
            \(file):5: field 'a': unknown type 'u5'; expected u1, u2le, u2be, u3le … u8be, s1 … s8be, b1 … b64, vlq, svarint, f2le … f8be, bytes, str, strz, protobuf

            """)
    }

    func testADefinitionWhoseExampleFailsLoadsWithAWarning() throws {
        let file = try temporaryFolder() + "/loose.yaml"
        try Data("protocol: loose\nmessages: [{id: 1, name: M}]\nexamples:\n  - hex: a5 01 01 00 00 00 00\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try btlens(["timeline", Self.captures + "/ble_a5_session.btsnoop", "--dissectors", file])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(
            run.stderr,
            "btlens: warning: \(file):4: example: a5.checksum.bad: command 0x01 sequence 0: checksum 0x00, expected 0xa7\n"
        )
        XCTAssertTrue(
            (run.stdout.split(separator: "\n").first ?? "").hasSuffix(
                "loose.yaml; \(file): 1 of 1 examples do not hold (btlens dissectors check)"), run.stdout)
    }

    /// Run from the repository with no definitions of the user's: ./Dissectors is loaded, says so,
    /// and its example binds nothing of another vendor's device on the same generic UUIDs.
    func testAnotherVendorsCaptureRunFromTheRepositoryGetsNoExampleNames() throws {
        let home = try temporaryFolder()
        let capture = home + "/ax200.btsnoop"
        try Data(DissectorEndToEndTests.otherVendor().bytes).write(to: URL(fileURLWithPath: capture))
        let env = ["HOME": home]
        let run = try btlens(["timeline", capture, "--format", "jsonl"], in: Self.repository, environment: env)
        XCTAssertEqual(run.status, 0)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(
            lines.first.map(String.init),
            #"{"type":"note","record":1,"time":"2023-11-14T22:13:20.001250Z","category":"dissectors.loaded","text":""#
                + "\(home)/.config/btlens/dissectors (yours): no such folder; Dissectors (current folder, \(Self.repository)/Dissectors): "
                + #"aurora-headphones.yaml, lawaken-lamp.yaml"}"#)
        XCTAssertFalse(run.stdout.contains("aurora-headphones\""), run.stdout)
        let bare = try btlens(["timeline", capture, "--format", "jsonl", "--no-dissectors"], environment: env)
        XCTAssertEqual(
            lines.filter { $0.contains(#""type":"diagnostic""#) },
            bare.stdout.split(separator: "\n").filter { $0.contains(#""type":"diagnostic""#) })
    }

    /// A user's definition of 0xFFF3 and a folder's: the user's names the frames, the folder's is
    /// left out with a note in every output; no "conflicting binding", no exit 2.
    func testTheUsersDefinitionWinsOverTheFoldersWithANote() throws {
        let root = try temporaryFolder()
        for dir in ["/work/Dissectors", "/config/btlens/dissectors"] {
            try FileManager.default.createDirectory(atPath: root + dir, withIntermediateDirectories: true)
        }
        func definition(_ name: String, _ message: String) -> Data {
            Data("protocol: \(name)\nbind:\n  characteristics: [fff3]\nmessages: [{id: 0x20, name: \(message)}]\n".utf8)
        }
        try definition("example", "TheirSet").write(to: URL(fileURLWithPath: root + "/work/Dissectors/example.yaml"))
        try definition("mine", "MySet").write(to: URL(fileURLWithPath: root + "/config/btlens/dissectors/mine.yaml"))
        let env = ["HOME": root, "XDG_CONFIG_HOME": root + "/config"]
        let capture = Self.captures + "/ble_a5_session.btsnoop"
        let run = try btlens(["timeline", capture], in: root + "/work", environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertTrue(run.stdout.contains(" MySet (0x20) "), run.stdout)
        XCTAssertFalse(run.stdout.contains("TheirSet"))
        let said =
            "Dissectors/example.yaml is not loaded, as yours win over the current folder's: characteristic fff3 is already bound to 'mine' (\(root)/config/btlens/dissectors/mine.yaml:3)"
        XCTAssertTrue((run.stdout.split(separator: "\n").first ?? "").hasSuffix(said), run.stdout)
        // Every output says it: stats (text and JSON), the summary, reports.
        XCTAssertTrue(
            try btlens(["stats", capture], in: root + "/work", environment: env).stdout.contains(
                "Dissectors:  \(root)/config/btlens/dissectors (yours): mine.yaml; Dissectors (current folder, "))
        let json = try btlens(["stats", capture, "--format", "json"], in: root + "/work", environment: env).stdout
        XCTAssertTrue(
            json.contains(
                #""definitions":{"disabled":false,"folders":[{"path":""# + "\(root)/config/btlens/dissectors"), json)
        XCTAssertTrue(json.contains(#""files":["mine.yaml"]"#) && json.contains(said), json)
        XCTAssertTrue(
            try btlens(["timeline", capture, "--summary"], in: root + "/work", environment: env).stdout.hasPrefix(
                "Dissectors:  \(root)/config/btlens/dissectors (yours): mine.yaml;"))
        let out = root + "/r.txt"
        XCTAssertEqual(try btlens(["report", capture, "-o", out], in: root + "/work", environment: env).status, 0)
        XCTAssertTrue(
            try String(contentsOfFile: out, encoding: .utf8).contains(
                "  Dissectors: \(root)/config/btlens/dissectors (yours): mine.yaml;"))
    }
}
