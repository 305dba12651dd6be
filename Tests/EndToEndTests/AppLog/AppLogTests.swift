import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// `--app-log`: the sample app logs beside their capture (Captures/ble_app_log.*), aligned by the
/// bytes they show, every matched line naming its record, and the lines that disagree with the air.
final class AppLogTests: XCTestCase {
    static let captures = JSONContractTests.root.appendingPathComponent("Captures").path
    let sample = SampleCaptures.appLogSession()

    private func run(_ extra: [String], log: String = "ble_app_log.logcat.txt") throws -> [[String: Any]] {
        let run = try runCLI(
            [
                "timeline", "--format", "jsonl", Self.captures + "/ble_app_log.btsnoop", "--app-log",
                Self.captures + "/" + log,
            ]
                + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    private func alignment(_ events: [[String: Any]]) -> [String: Any]? {
        events.first { $0["type"] as? String == "log.alignment" }
    }

    /// logcat (milliseconds, no year, UTC+1): the offset found from the 10 lines with bytes on the
    /// air is within 5 ms of the phone's −1 h (TX lines are logged 3 ms early, RX 4 ms late).
    func testLogcatIsAlignedByContentAndEveryLineNamesItsRecord() throws {
        let events = try run([])
        let a = try XCTUnwrap(alignment(events))
        XCTAssertEqual(a["method"] as? String, "content")
        XCTAssertEqual(a["matched"] as? Int, 10)
        let offset = try XCTUnwrap(a["offset_ms"] as? Double)
        XCTAssertEqual(offset, -3_600_000, accuracy: 5)
        var matched: [Int: Int] = [:]
        var times: [String] = []
        for e in events where e["type"] as? String == "log" {
            times.append(e["time"] as? String ?? "")
            if let r = e["matches_record"] as? Int { matched[e["line"] as? Int ?? 0] = r }
        }
        XCTAssertEqual(matched, sample.matches)
        XCTAssertEqual(times, times.sorted(), "log lines in time order")
        XCTAssertEqual(times.count, 13, "every line but the separator")
    }

    func testDisagreementsAreDiagnostics() throws {
        let events = try run([])
        let notOnAir = events.filter { $0["id"] as? String == "app.tx.not_on_air" }
        XCTAssertEqual(notOnAir.compactMap { $0["line"] as? Int }, sample.notOnAir)
        // The SetAncMode (0x22) the app logged as sent, sequence 4: never on the air.
        XCTAssertEqual(
            notOnAir.first?["bytes"] as? String, Hex.string(Frame.encode(command: 0x22, sequence: 4, payload: [0x02])))
        let notLogged = events.filter { $0["id"] as? String == "app.rx.not_logged" }
        XCTAssertEqual(notLogged.compactMap { $0["record"] as? Int }, sample.notLogged)
    }

    /// The app's own logger: whole seconds and a zone, so the offset is under a second, and the
    /// same lines match (the window is 2 s).
    func testAnAppLoggerWithSecondsAndAZone() throws {
        let events = try run([], log: "ble_app_log.app.log")
        let a = try XCTUnwrap(alignment(events))
        XCTAssertEqual(a["method"] as? String, "content")
        XCTAssertEqual(try XCTUnwrap(a["offset_ms"] as? Double), 0, accuracy: 1000)
        let matched = events.filter { $0["type"] as? String == "log" && $0["matches_record"] != nil }
        XCTAssertEqual(matched.count, 10)
        XCTAssertEqual(events.first { $0["type"] as? String == "log" }?["tag"] as? String, "BLE/DATA")
    }

    func testAGivenOffsetAndAFilter() throws {
        let events = try run(["--app-log-offset=-3600000", "--app-log-filter", "TX write"])
        let a = try XCTUnwrap(alignment(events))
        XCTAssertEqual(a["method"] as? String, "given")
        XCTAssertEqual(a["offset_ms"] as? Double, -3_600_000)
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.count, 6)
        XCTAssertTrue(lines.allSatisfy { ($0["message"] as? String)?.hasPrefix("TX write") == true })
    }

    /// Found by a stranger: a JSONL filter that selects no ATT PDU still aligns (the merger needs
    /// them); a filter on the log's lines leaves alignment alone; app.* warnings count for --fail-on.
    func testFiltersAndFailOnSeeTheLogsDiagnostics() throws {
        let matched = try run(["-Y", "log && matches_record"])
        XCTAssertEqual(matched.count, 10)
        let warnings = try run(["-Y", "severity >= warning"])
        XCTAssertEqual(warnings.compactMap { $0["id"] as? String }, ["app.tx.not_on_air"])
        let filtered = try run(["--app-log-filter", "session"])
        XCTAssertEqual(alignment(filtered)?["method"] as? String, "content")
        XCTAssertEqual(filtered.filter { $0["type"] as? String == "log" }.count, 1)
        let failing = try runCLI([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", Self.captures + "/ble_app_log.logcat.txt",
            "--fail-on", "warning",
        ])
        XCTAssertEqual(failing.status, 3, failing.stderr)
    }

    /// A notification holding two frames (#33 of the A5 session), logged frame by frame: no
    /// app.rx.not_logged for it, while one never logged (#55) still is.
    func testAValueLoggedFrameByFrameIsLogged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("frames.log").path
        let lines = [
            "2023-11-14T22:13:20.038Z [BLE] RX notify: a501a01000010057",
            "2023-11-14T22:13:20.042Z [BLE] RX frame: a501a111000200308a",
            "2023-11-14T22:13:20.042Z [BLE] RX frame: a50105120003025a6480",
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: log, atomically: true, encoding: .utf8)
        let run = try runCLI(
            ["timeline", "--format", "jsonl", Self.captures + "/ble_a5_session.btsnoop", "--app-log", log])
        let events = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        // Said where the stream's first is, the later ones named in the note at the end.
        let notLogged = events.filter { $0["id"] as? String == "app.rx.not_logged" }.flatMap { e -> [Int] in
            guard let listed = e["records"] as? String else { return [e["record"] as? Int].compactMap { $0 } }
            return listed.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces).dropFirst()) }
        }
        XCTAssertFalse(notLogged.contains(33), "\(notLogged)")
        XCTAssertTrue(notLogged.contains(55), "\(notLogged)")
    }

    /// A log whose lines show no bytes of the capture: read on its own clock, said so.
    func testNothingToMatchIsTheClock() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("plain.log").path
        try "2023-11-14 22:13:20.010 [APP] started\n2023-11-14 22:13:20.020 [APP] TX 01 02 03 04\n".write(
            toFile: log, atomically: true, encoding: .utf8)
        let run = try runCLI(
            ["timeline", "--format", "jsonl", Self.captures + "/ble_app_log.btsnoop", "--app-log", log])
        let events = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        XCTAssertEqual(alignment(events)?["method"] as? String, "clock")
        XCTAssertEqual(events.filter { $0["id"] as? String == "app.tx.not_on_air" }.count, 1)
        // A capture with no records: the log's lines still come out, on their own clock.
        let empty = folder.appendingPathComponent("empty.btsnoop")
        try Data(Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xea]).write(to: empty)
        let alone = try runCLI(["timeline", "--format", "jsonl", empty.path, "--app-log", log])
        XCTAssertEqual(alone.stdout.components(separatedBy: "\"type\":\"log\"").count - 1, 2, alone.stdout)
        // Mistakes are usage errors.
        let missing = try runCLI(["timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", log + ".none"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot be read"), missing.stderr)
        let folderGiven = try runCLI(["timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", folder.path])
        XCTAssertEqual(folderGiven.status, 2, folderGiven.stderr)
        XCTAssertTrue(folderGiven.stderr.contains("a folder"), folderGiven.stderr)
        let regex = try runCLI([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", log, "--app-log-filter", "(",
        ])
        XCTAssertEqual(regex.status, 2)
    }

    /// A log that writes WriteSettings (#8 on the air) before SetEQPreset (#6): app.order at the
    /// second line, naming both lines and both records.
    func testTheLogAndTheAirDisagreeOnOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("order.log").path
        let settings = Hex.spaced(Frame.encode(command: 0x21, sequence: 2, payload: [0x00, 0x10, 0x20]))
        let preset = Hex.spaced(Frame.encode(command: 0x20, sequence: 1, payload: [0x01]))
        try "2023-11-14T22:13:20.040Z [BLE] TX write: \(settings)\n2023-11-14T22:13:20.045Z [BLE] TX write: \(preset)\n"
            .write(toFile: log, atomically: true, encoding: .utf8)
        let run = try runCLI(
            ["timeline", "--format", "jsonl", Self.captures + "/ble_app_log.btsnoop", "--app-log", log])
        let events = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let order = events.filter { $0["id"] as? String == "app.order" }
        XCTAssertEqual(order.count, 1, run.stdout)
        XCTAssertEqual(order.first?["line"] as? Int, 2)
        XCTAssertEqual(order.first?["earlier_line"] as? Int, 1)
        XCTAssertEqual(order.first?["air_record"] as? Int, 6)
        XCTAssertEqual(order.first?["earlier_air_record"] as? Int, 8)
    }

    func testTheTextTimelineMarksLogLines() throws {
        let run = try runCLI([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", Self.captures + "/ble_app_log.logcat.txt",
            "--color", "never",
        ])
        XCTAssertTrue(
            run.stdout.contains(" ~      - LOG   [AuroraBLE] D TX write fff3: a5 01 20 01 00 01 01 c9 = #6\n"),
            run.stdout)
        XCTAssertTrue(run.stdout.contains("L3 "), run.stdout)
    }
}
