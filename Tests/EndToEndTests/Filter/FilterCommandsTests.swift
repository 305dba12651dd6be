import BTLensTestSupport
import Foundation
import XCTest

/// `--filter` in every command: stats and the report count what the timeline shows, follow shows
/// it, and a bad expression stops every command before it reads anything.
final class FilterCommandsTests: XCTestCase {
    private let samples = JSONContractTests.root.appendingPathComponent("Captures").path

    private func objects(_ text: String) throws -> [[String: JSON]] {
        try text.split(separator: "\n").compactMap { line in
            guard case .object(let o) = try JSONDecoder().decode(JSON.self, from: Data(line.utf8)) else { return nil }
            return o
        }
    }

    private func type(_ o: [String: JSON]) -> String {
        guard case .string(let t)? = o["type"] else { return "" }
        return t
    }

    private func number(_ v: JSON?) -> Int {
        guard case .number(let n)? = v else { return -1 }
        return Int(n)
    }

    /// What stats counts is what the timeline shows under the same filter; connections stay whole.
    func testStatsCountsWhatTheTimelineSelects() throws {
        for (file, expression) in [
            ("ble_a5_session.btsnoop", "a5 && direction == sent"),
            ("ble_a5_faults.btsnoop", "severity >= warning"),
            ("ble_a5_faults.btsnoop", "command == 0x20"),
            ("ble_a5_session.btsnoop", "att && opcode == 0x1b || diagnostic"),
            ("bredr_iap2_ea.btsnoop", "!hci"),
        ] {
            let path = samples + "/" + file
            let timeline = try objects(
                runCLI(["timeline", "--format", "jsonl", "--diagnostics-per-second", "0", "-Y", expression, path])
                    .stdout)
            let whole = try JSONDecoder().decode(
                JSON.self, from: Data(runCLI(["stats", "--format", "json", path]).stdout.utf8))
            let run = try runCLI(["stats", "--format", "json", "-Y", expression, path])
            XCTAssertEqual(run.status, 0, run.stderr)
            guard case .object(let stats) = try JSONDecoder().decode(JSON.self, from: Data(run.stdout.utf8)),
                case .object(let wholeStats) = whole
            else { return XCTFail("stats JSON") }
            XCTAssertEqual(stats["filter"], .string(expression))
            guard case .object(let a5) = stats["a5_frames"], case .object(let att) = stats["att_pdus"],
                case .object(let diagnostics) = stats["diagnostics"]
            else { return XCTFail("stats keys") }
            let what = "\(file): \(expression)"
            XCTAssertEqual(number(a5["total"]), timeline.filter { type($0) == "a5" }.count, what)
            XCTAssertEqual(
                att.values.map { number($0) }.reduce(0, +), timeline.filter { type($0) == "att" }.count, what)
            XCTAssertEqual(
                diagnostics.values.map { number($0) }.reduce(0, +), timeline.filter { type($0) == "diagnostic" }.count,
                what)
            XCTAssertEqual(stats["connections"], wholeStats["connections"], what)
            XCTAssertEqual(stats["records"], wholeStats["records"], what)
            XCTAssertEqual(stats["bytes"], wholeStats["bytes"], what)
        }
    }

    /// The report's timeline holds the rows the filtered timeline shows, and says the filter.
    func testReportHoldsWhatTheFilterSelects() throws {
        let path = samples + "/ble_a5_faults.btsnoop"
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("filter-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let expression = "a5 || severity == error"
        let run = try runCLI(["report", "-Y", expression, path, "-o", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        let timeline = try objects(
            runCLI(["timeline", "--format", "jsonl", "--diagnostics-per-second", "0", "-Y", expression, path]).stdout)
        guard
            case .object(let report) = try JSONDecoder().decode(
                JSON.self, from: Data(contentsOf: URL(fileURLWithPath: out))),
            case .array(let rows)? = report["timeline"].flatMap({ t -> JSON? in
                if case .object(let o) = t { return o["rows"] }
                return t
            })
        else { return XCTFail("report JSON") }
        XCTAssertEqual(report["filter"], .string(expression))
        XCTAssertEqual(rows.count, timeline.count)
        let records = rows.compactMap { row -> Int? in
            guard case .object(let o) = row else { return nil }
            return number(o["record"])
        }
        XCTAssertEqual(records, timeline.map { number($0["record"]) })
        guard case .array(let diagnostics)? = report["diagnostics"] else { return XCTFail("diagnostics") }
        XCTAssertEqual(diagnostics.count, 3, "the three error ids, and no warning")
        // The summary and the findings say the filter, in Markdown (its | escaped) and HTML.
        let markdown = expression.replacingOccurrences(of: "|", with: "\\|")
        for (ext, needles) in [
            ("md", ["Filter: \(markdown)", "## Diagnostics (3), of those --filter '\(markdown)' selects"]),
            (
                "html",
                [
                    "<th>filter</th><td><code>\(expression)</code>",
                    "Of those <code>--filter \(expression)</code> selects",
                ]
            ),
        ] {
            let page = out + "." + ext
            defer { try? FileManager.default.removeItem(atPath: page) }
            XCTAssertEqual(try runCLI(["report", "-Y", expression, path, "-o", page]).status, 0)
            let text = try String(contentsOfFile: page, encoding: .utf8)
            for n in needles { XCTAssertTrue(text.contains(n), "\(ext): \(n)") }
        }
    }

    /// follow on a stream shows what timeline shows under the same filter.
    func testFollowShowsWhatTheTimelineSelects() throws {
        let path = samples + "/ble_a5_session.btsnoop"
        let expression = "command_name == SetEQPreset || response_to == 29"
        let timeline = try runCLI(["timeline", "--format", "jsonl", "-Y", expression, path])
        let follow = try runCLI(["follow", "--format", "jsonl", "-Y", expression, "-"], stdin: path)
        XCTAssertEqual(follow.status, 0, follow.stderr)
        XCTAssertEqual(follow.stdout, timeline.stdout)
        XCTAssertEqual(timeline.stdout.split(separator: "\n").count, 2)
        XCTAssertTrue(follow.stderr.contains("2 events matched --filter"), follow.stderr)
    }

    /// A bad expression: exit 2, the expression and a caret, before the capture is opened (the
    /// file named does not exist, which would otherwise exit 1).
    func testBadFilterExitsTwoBeforeReading() throws {
        let missing = "/nonexistent/capture.btsnoop"
        for arguments in [
            ["timeline", missing], ["follow", missing], ["stats", missing], ["report", missing, "-o", "/tmp/x.html"],
            ["convert", missing, "-o", "/tmp/x.pcap"],
        ] {
            let run = try runCLI(arguments + ["-Y", "a5 && comand == 0x20"])
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(
                run.stderr.contains(
                    """
                    unknown field "comand" (did you mean "command"?)
                      a5 && comand == 0x20
                            ^~~~~~
                    """), "\(arguments): \(run.stderr)")
        }
    }

    func testHelpFiltersHasTheGrammarAndExamples() throws {
        let run = try runCLI(["help", "filters"])
        XCTAssertEqual(run.status, 0)
        for needle in ["FIELD contains VALUE", "EXAMPLES", "severity >= warning", "did you mean"] {
            XCTAssertTrue(run.stdout.contains(needle), needle)
        }
        for command in ["timeline", "follow", "stats", "report", "convert"] {
            XCTAssertTrue(try runCLI([command, "--help"]).stdout.contains("--filter <expr>"), command)
        }
    }
}
