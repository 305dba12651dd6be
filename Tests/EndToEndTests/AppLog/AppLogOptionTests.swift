import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// The `--app-log` options as a stranger used them: an offset with a fraction (as `log.alignment`
/// says it), a pattern that reads nothing, a time layout, the filter and the diagnostics of the lines
/// it hides, one log given twice, and which mistakes are usage errors (2) and which unreadable logs (1).
final class AppLogOptionTests: XCTestCase {
    static let captures = AppLogTests.captures
    let capture = AppLogTests.captures + "/ble_app_log.btsnoop"
    let logcat = AppLogTests.captures + "/ble_app_log.logcat.txt"

    private func jsonl(_ arguments: [String]) throws -> [[String: Any]] {
        let run = try runCLI(["timeline", "--format", "jsonl"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    func testAnOffsetWithAFractionIsGivenBack() throws {
        let text = try runCLI(["timeline", capture, "--app-log", logcat, "--app-log-offset=-3599997.25"])
        XCTAssertTrue(text.stdout.contains("its clock − 3599997.25 ms is the capture's"), text.stdout)
        let events = try jsonl([capture, "--app-log", logcat, "--app-log-offset=-3599997.25"])
        let a = try XCTUnwrap(events.first { $0["type"] as? String == "log.alignment" })
        XCTAssertEqual(a["method"] as? String, "given")
        XCTAssertEqual(a["offset_ms"] as? Double, -3_599_997.25)
        let huge = try runCLI(["timeline", capture, "--app-log", logcat, "--app-log-offset=1e300"])
        XCTAssertEqual(huge.status, 2, huge.stderr)
    }

    /// A pattern that reads none of the first lines is said before any output; a day-first time
    /// is read with the layout given.
    func testAPatternThatReadsNothingAndATimeLayout() throws {
        let log = try temporaryLog("14/11/2023 23:13:20.024 [BLE] TX a5 01 20 01 00 01 01 c9\n")
        let pattern = "^(?<time>\\S+ \\S+) (?<message>.*)"
        let nothing = try runCLI(["timeline", capture, "--app-log", log, "--app-log-format", pattern])
        XCTAssertEqual(nothing.status, 2)
        XCTAssertEqual(nothing.stdout, "")
        XCTAssertTrue(nothing.stderr.contains("reads none of its first 1 lines"), nothing.stderr)
        let events = try jsonl([
            capture, "--app-log", log, "--app-log-format", pattern, "--app-log-time-format", "%d/%m/%Y %H:%M:%S.%f",
            "--app-log-offset=-3600000",
        ])
        XCTAssertEqual(events.first { $0["type"] as? String == "log" }?["matches_record"] as? Int, 6)
    }

    /// The filter hides lines, not what they disagree with.
    func testTheFilterKeepsTheDiagnosticsOfTheLinesItHides() throws {
        let all = try jsonl([capture, "--app-log", logcat])
        let filtered = try jsonl([capture, "--app-log", logcat, "--app-log-filter", "session"])
        func ids(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["id"] as? String } }
        XCTAssertEqual(ids(filtered), ids(all))
        XCTAssertEqual(filtered.filter { $0["type"] as? String == "log" }.count, 1)
    }

    func testMistakesAndUnreadableLogs() throws {
        let twice = try runCLI(["timeline", capture, "--app-log", logcat, "--app-log", logcat])
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.stderr.contains("given twice"), twice.stderr)
        let otherwise = try runCLI([
            "timeline", capture, "--app-log", logcat, "--app-log",
            Self.captures + "/../Captures/ble_app_log.logcat.txt",
        ])
        XCTAssertEqual(otherwise.status, 2, "the same file by another path")
        // Bytes no format reads: a usage error (2) before any output, its first line shown with
        // its control characters escaped.
        let junk = try temporaryLog("\u{1}\u{2}binary\u{7f}\u{1b}[2J\n\u{0}\u{0}")
        let unreadable = try runCLI(["timeline", capture, "--app-log", junk])
        XCTAssertEqual(unreadable.status, 2, unreadable.stderr)
        XCTAssertEqual(unreadable.stdout, "", "nothing of the timeline before the log is found unreadable")
        XCTAssertTrue(unreadable.stderr.contains("give --app-log-format"), unreadable.stderr)
        // A binary file's first line is shown escaped, and cut.
        let binary = try temporaryLog(String(repeating: "\u{0}", count: 600) + "\n")
        let shown = try runCLI(["timeline", capture, "--app-log", binary])
        XCTAssertEqual(shown.status, 2)
        XCTAssertTrue(shown.stderr.contains("\\u{0}…\""), shown.stderr)
        XCTAssertLessThan(shown.stderr.count, 600, shown.stderr)
        XCTAssertFalse(unreadable.stderr.contains("\u{1b}"), unreadable.stderr)
        XCTAssertTrue(unreadable.stderr.contains("\\u{1b}"), unreadable.stderr)
        let timeOnly = try runCLI(["timeline", capture, "--app-log", logcat, "--app-log-time-format", "%T"])
        XCTAssertEqual(timeOnly.status, 2, timeOnly.stderr)
    }

    /// The report's text timeline names each line's log when there are two, as the timeline does.
    func testTheTextReportNamesTwoLogs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("r.txt").path
        let run = try runCLI([
            "report", capture, "--app-log", logcat, "--app-log", Self.captures + "/ble_app_log.app.log", "-o", out,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("L") }
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(
            lines.allSatisfy {
                $0.contains("LOG   ble_app_log.logcat.txt: ") || $0.contains("LOG   ble_app_log.app.log: ")
            },
            lines.joined(separator: "\n"))
    }

    /// Logs are named by their file names, or by the paths given where two share one.
    func testNamesOfSeveralLogs() {
        XCTAssertEqual(AppLogEntry.names(["a/app.log"]), [:])
        XCTAssertEqual(AppLogEntry.names(["a/app.log", "x.txt"]), ["a/app.log": "app.log", "x.txt": "x.txt"])
        XCTAssertEqual(
            AppLogEntry.names(["a/app.log", "b/app.log", "c.txt"]),
            ["a/app.log": "a/app.log", "b/app.log": "b/app.log", "c.txt": "c.txt"])
    }
}
