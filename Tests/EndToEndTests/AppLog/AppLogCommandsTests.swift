import BTLensTestSupport
import Foundation
import XCTest

/// `--app-log` beyond the timeline: `stats` and `diff` say what the timeline says of the logs.
final class AppLogCommandsTests: XCTestCase {
    static let captures = AppLogTests.captures
    let sample = SampleCaptures.appLogSession()

    private func json(_ arguments: [String]) throws -> [String: Any] {
        let run = try runCLI(arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// The logs' alignment, lines and diagnostics are counted; everything else is as without them.
    func testStatsCountsTheLogsAndNothingElseChanges() throws {
        let capture = Self.captures + "/ble_app_log.btsnoop"
        let log = Self.captures + "/ble_app_log.logcat.txt"
        var with = try json(["stats", "--format", "json", capture, "--app-log", log])
        var without = try json(["stats", "--format", "json", capture])
        let logs = try XCTUnwrap(with.removeValue(forKey: "app_logs") as? [[String: Any]])
        XCTAssertEqual(logs.count, 1)
        XCTAssertEqual(logs.first?["source"] as? String, log)
        XCTAssertEqual(logs.first?["method"] as? String, "content")
        XCTAssertEqual(logs.first?["matched"] as? Int, 10)
        XCTAssertEqual(try XCTUnwrap(logs.first?["offset_ms"] as? Double), -3_600_000, accuracy: 5)
        XCTAssertEqual(logs.first?["lines"] as? Int, 13)
        XCTAssertEqual(logs.first?["lines_matching_records"] as? Int, sample.matches.count)
        let diagnostics = try XCTUnwrap(with.removeValue(forKey: "diagnostics") as? [String: Int])
        XCTAssertEqual(
            diagnostics, ["app.tx.not_on_air": sample.notOnAir.count, "app.rx.not_logged": sample.notLogged.count])
        without.removeValue(forKey: "diagnostics")
        XCTAssertEqual(NSDictionary(dictionary: with), NSDictionary(dictionary: without))
        // One log cannot belong to every capture of a folder.
        let folder = try runCLI(["stats", Self.captures, "--app-log", log])
        XCTAssertEqual(folder.status, 2, folder.stderr)
        XCTAssertTrue(folder.stderr.contains("a folder"), folder.stderr)
    }

    /// Two plain logs are the before's and the after's; `after:` names one side alone. The app.*
    /// diagnostics are compared like any, and count as regressions.
    func testDiffComparesTheLogsDiagnostics() throws {
        let capture = Self.captures + "/ble_app_log.btsnoop"
        let log = Self.captures + "/ble_app_log.logcat.txt"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The sample's log without the line whose bytes never went out.
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let fixed = folder.appendingPathComponent("fixed.log").path
        let unsent = try XCTUnwrap(sample.notOnAir.first)
        try lines.enumerated().filter { $0.offset + 1 != unsent }.map(\.element).joined(separator: "\n")
            .write(toFile: fixed, atomically: true, encoding: .utf8)
        let diff = try json(["diff", "--format", "json", capture, capture, "--app-log", log, "--app-log", fixed])
        let rows = try XCTUnwrap(diff["diagnostics"] as? [[String: Any]])
        let row = try XCTUnwrap(rows.first { $0["id"] as? String == "app.tx.not_on_air" })
        XCTAssertEqual(row["before"] as? Int, 1)
        XCTAssertEqual(row["after"] as? Int, 0)
        let regressed = try runCLI(["diff", capture, capture, "--app-log", "after:" + log, "--fail-on-regression"])
        XCTAssertEqual(regressed.status, 3, regressed.stderr)
        XCTAssertTrue(regressed.stderr.contains("new warning app.tx.not_on_air"), regressed.stderr)
        let ambiguous = try runCLI(["diff", capture, capture, "--app-log", log])
        XCTAssertEqual(ambiguous.status, 2, ambiguous.stderr)
    }

    /// An Android bugreport holds the snoop log and the logcat: `--app-log bugreport` reads the
    /// logcat of the bugreport given as the capture (dumpstate's `-v uid` column and all), aligned
    /// and matched as the logcat alone is. A capture that is no bugreport is a usage error.
    func testTheLogcatOfTheCapturesBugreport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // "11-14 23:13:20.024  4321  4390 D AuroraBLE: …" with dumpstate's uid column after the time.
        let logcat = sample.logcat.split(separator: "\n").filter { !$0.hasPrefix("---") }.map { line in
            line.replacingOccurrences(of: "  4321  4390", with: " u0_a123  4321  4390")
        }
        let text =
            ([
                "== dumpstate: 2023-11-14 23:14:00",
                "------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------",
                "--------- beginning of main",
            ]
            + logcat + [
                "------ 0.1s was the duration of 'SYSTEM LOG' ------",
                "------ EVENT LOG (logcat -b events -v threadtime -v printable -v uid -d *:v) ------",
                "11-14 23:13:20.030  1000  1000  1000 I am_proc: a5 01 20 01 00 01 01 c9",
            ])
            .joined(separator: "\n") + "\n"
        let zip = folder.appendingPathComponent("bugreport.zip")
        try Data(
            BugreportZip.make([
                ("bugreport-phone-2023-11-14.txt", Array(text.utf8), true),
                ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", sample.session.bytes, true),
            ])
        ).write(to: zip)
        let run = try runCLI(["timeline", "--format", "jsonl", zip.path, "--app-log", "bugreport"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let events = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let alignment = try XCTUnwrap(events.first { $0["type"] as? String == "log.alignment" })
        XCTAssertEqual(alignment["method"] as? String, "content")
        XCTAssertEqual(try XCTUnwrap(alignment["offset_ms"] as? Double), -3_600_000, accuracy: 5)
        XCTAssertEqual(alignment["source"] as? String, zip.path + " member bugreport-phone-2023-11-14.txt")
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.count, 13, "the SYSTEM LOG's lines, not the EVENT LOG's")
        XCTAssertEqual(lines.filter { $0["matches_record"] != nil }.count, sample.matches.count)
        let notBugreport = try runCLI([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", "bugreport",
        ])
        XCTAssertEqual(notBugreport.status, 2, notBugreport.stderr)
        XCTAssertTrue(notBugreport.stderr.contains("is not one"), notBugreport.stderr)
    }
}
