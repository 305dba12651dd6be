import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// Where `--app-log` puts what it says: every event in time order, a received value no line shows
/// said right after its record, lines showing only a value's head matched, two logs named apart,
/// and a log that misses the capture said.
final class AppLogPlacementTests: XCTestCase {
    static let captures = AppLogTests.captures
    let sample = SampleCaptures.appLogSession()

    private func jsonl(_ arguments: [String]) throws -> [[String: Any]] {
        let run = try runCLI(["timeline", "--format", "jsonl"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The second hold: app.rx.not_logged comes after the last event of its record, before the
    /// next record's, and the whole output is in time order.
    func testNotLoggedFollowsItsRecordInTimeOrder() throws {
        let events = try jsonl([
            Self.captures + "/ble_app_log.btsnoop", "--app-log", Self.captures + "/ble_app_log.logcat.txt",
        ])
        let times = events.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted())
        let said = events.indices.filter { events[$0]["id"] as? String == "app.rx.not_logged" }
        XCTAssertEqual(said.count, sample.notLogged.count)
        for (i, record) in zip(said, sample.notLogged) {
            XCTAssertEqual(events[i]["record"] as? Int, record)
            XCTAssertEqual(events[i - 1]["record"] as? Int, record, "after an event of its record")
            XCTAssertNotEqual(events[i + 1]["record"] as? Int, record, "after the last of them")
        }
    }

    /// A line that logs only the first 8 bytes of a 10-byte write (#8, WriteSettings) names it and
    /// is no app.tx.not_on_air; one logging 4 bytes of it is too short to say so.
    func testALineShowingAValuesHeadMatchesIt() throws {
        let head = "a5 01 21 02 00 03 00 10"
        let log = try temporaryLog(
            "2023-11-14T23:13:20.048+01:00 [BLE] TX write: \(head)\n2023-11-14T23:13:20.048+01:00 [BLE] TX write: a5 01 21 02\n"
        )
        let events = try jsonl([Self.captures + "/ble_app_log.btsnoop", "--app-log", log, "--app-log-offset=0"])
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.map { $0["matches_record"] as? Int }, [8, nil])
        XCTAssertEqual(
            events.filter { $0["id"] as? String == "app.tx.not_on_air" }.compactMap { $0["line"] as? Int }, [2])
    }

    /// A log of another year, with nothing to align by: said once, at the end, with both spans.
    func testALogOutsideTheCaptureIsSaid() throws {
        let log = try temporaryLog("2020-01-02 03:04:05.000 [APP] started\n2020-01-02 03:04:06.000 [APP] done\n")
        let events = try jsonl([Self.captures + "/ble_app_log.btsnoop", "--app-log", log])
        let outside = events.filter { $0["id"] as? String == "app.log.outside" }
        XCTAssertEqual(outside.count, 1)
        XCTAssertEqual(outside.first?["source"] as? String, log)
        XCTAssertEqual(outside.first?["first_line_time"] as? String, "2020-01-02T03:04:05.000000Z")
        XCTAssertEqual(events.last?["id"] as? String, "app.log.outside")
        let fitting = try jsonl([
            Self.captures + "/ble_app_log.btsnoop", "--app-log", Self.captures + "/ble_app_log.logcat.txt",
        ])
        XCTAssertFalse(fitting.contains { $0["id"] as? String == "app.log.outside" })
    }

    /// Two logs on the text timeline: each line begins with its file's name.
    func testTwoLogsAreNamedApart() throws {
        let run = try runCLI([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--color", "never",
            "--app-log", Self.captures + "/ble_app_log.logcat.txt", "--app-log", Self.captures + "/ble_app_log.app.log",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let logLines = run.stdout.split(separator: "\n").filter { $0.contains(" LOG   ") && $0.hasPrefix("L") }
        XCTAssertFalse(logLines.isEmpty)
        for l in logLines {
            XCTAssertTrue(
                l.contains("LOG   ble_app_log.logcat.txt: ") || l.contains("LOG   ble_app_log.app.log: "), String(l))
        }
    }

    /// logcat `brief` writes no time: each line showing bytes goes to the packet that carried them
    /// (a received one just after it), the others after the line before; the line whose bytes
    /// never went out waits only until a later line finds its packet.
    func testABriefLogcatIsPlacedByItsBytes() throws {
        let brief = sample.logcat.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            // "11-14 23:13:20.024  4321  4390 D AuroraBLE: TX …" → "D/AuroraBLE( 4321): TX …"
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count > 5, let colon = line.range(of: ": ") else { return String(line) }
            return "\(f[4])/\(f[5].dropLast(f[5].hasSuffix(":") ? 1 : 0))( \(f[2])): \(line[colon.upperBound...])"
        }
        let log = try temporaryLog(brief.joined(separator: "\n"))
        let events = try jsonl([Self.captures + "/ble_app_log.btsnoop", "--app-log", log])
        let alignment = try XCTUnwrap(events.first { $0["type"] as? String == "log.alignment" })
        XCTAssertEqual(alignment["untimed"] as? Bool, true)
        XCTAssertEqual(alignment["method"] as? String, "content")
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.compactMap { $0["line"] as? Int }, Array(2...14))
        var matched: [Int: Int] = [:]
        for l in lines { if let r = l["matches_record"] as? Int { matched[l["line"] as? Int ?? 0] = r } }
        XCTAssertEqual(matched, sample.matches)
        XCTAssertEqual(
            events.filter { $0["id"] as? String == "app.tx.not_on_air" }.compactMap { $0["line"] as? Int },
            sample.notOnAir)
        let times = events.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted())
        // Each line with bytes is next to its packet: a sent one right before, a received one right after.
        for (line, record) in matched {
            let i = try XCTUnwrap(events.firstIndex { $0["type"] as? String == "log" && $0["line"] as? Int == line })
            XCTAssertTrue(
                [i - 1, i + 1].contains { $0 >= 0 && $0 < events.count && events[$0]["record"] as? Int == record },
                "line \(line) beside #\(record)")
        }
    }

    /// Frames of an iAP2 External Accessory session: an app logs what it writes to and reads from
    /// the session, whose frames are no ATT value; each line names its frame's record, the one with
    /// a bad checksum too (its bytes as they were on the air).
    func testFramesOfAnEASessionAreMatched() throws {
        let sent = Frame.encode(command: 0x20, sequence: 1, payload: [1, 2, 3])
        var bad = Frame.encode(command: 0x05, sequence: 65, payload: [0x64])
        bad[bad.count - 1] = 82
        let log = try temporaryLog(
            """
            2023-11-14T22:13:20.034Z [EA] write com.lawaken.iap2: \(Hex.spaced(sent))
            2023-11-14T22:13:20.041Z [EA] read: \(Hex.string(bad))
            2023-11-14T22:13:20.050Z [EA] write com.lawaken.iap2: a5 01 21 09 00 01 07 d7
            """)
        let events = try jsonl([Self.captures + "/bredr_iap2_ea.btsnoop", "--app-log", log])
        XCTAssertEqual(events.first { $0["type"] as? String == "log.alignment" }?["method"] as? String, "content")
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.map { $0["matches_record"] as? Int }, [29, 31, nil])
        XCTAssertEqual(
            events.filter { $0["id"] as? String == "app.tx.not_on_air" }.compactMap { $0["line"] as? Int }, [3])
    }

    /// Found by a stranger: an app logs a frame whole before cutting it to the MTU (#31 and #32 of
    /// the A5 session carry one 37-byte frame), and a notification's frames one by one (#33 holds
    /// two): each line names the record of its frame, and none is said not on the air.
    func testFramesJoinedFromWritesOrInsideAValueAreMatched() throws {
        let whole = Frame.encode(command: 0x21, sequence: 8, payload: [0x00] + Array(0x01...0x1d))
        let log = try temporaryLog(
            """
            2023-11-14T22:13:20.037Z [BLE] TX frame: \(Hex.string(whole))
            2023-11-14T22:13:20.045Z [BLE] RX frame: a501a111000200308a
            2023-11-14T22:13:20.045Z [BLE] RX frame: a50105120003025a6480
            """)
        let events = try jsonl([Self.captures + "/ble_a5_session.btsnoop", "--app-log", log])
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.map { $0["matches_record"] as? Int }, [32, 33, 33])
        XCTAssertFalse(events.contains { $0["id"] as? String == "app.tx.not_on_air" })
        XCTAssertFalse(events.contains { $0["id"] as? String == "app.rx.not_logged" && $0["record"] as? Int == 33 })
        // A frame that began in one notification (#40) and ended in the next (#41), logged whole:
        // both values are shown, neither said not logged.
        let split = Frame.encode(command: 0xa2, sequence: 19, payload: Array(repeating: 0x42, count: 12))
        let log2 = try temporaryLog("2023-11-14T22:13:20.053Z [BLE] RX frame: \(Hex.string(split))\n")
        let events2 = try jsonl([Self.captures + "/ble_a5_session.btsnoop", "--app-log", log2])
        XCTAssertEqual(events2.first { $0["type"] as? String == "log" }?["matches_record"] as? Int, 41)
        let notLogged = events2.filter { $0["id"] as? String == "app.rx.not_logged" }.compactMap {
            $0["record"] as? Int
        }
        XCTAssertFalse(notLogged.contains(40), "\(notLogged)")
        XCTAssertFalse(notLogged.contains(41), "\(notLogged)")
    }

    /// A log whose times go back a little (two threads, logcat's buffers interleaved) comes out in
    /// time order, lines of one time in file order.
    func testLinesGoingBackInTimeComeInTimeOrder() throws {
        let log = try temporaryLog(
            """
            11-14 23:13:20.070  4321  4390 D BLE: third
            11-14 23:13:20.030  4321  4391 D BLE: first
            11-14 23:13:20.050  4321  4390 D BLE: second, a
            11-14 23:13:20.050  4321  4390 D BLE: second, b
            11-14 23:13:20.120  4321  4390 D BLE: last
            """)
        let events = try jsonl([
            Self.captures + "/ble_app_log.btsnoop", "--app-log", log, "--app-log-offset=-3600000",
        ])
        let lines = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(lines.compactMap { $0["line"] as? Int }, [2, 3, 4, 1, 5])
        let times = events.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted())
    }

    /// The note of what was loaded stays the timeline's first line; each log's alignment follows.
    func testTheLoadedNoteStaysFirst() throws {
        let events = try jsonl([
            Self.captures + "/ble_app_log.btsnoop", "--app-log", Self.captures + "/ble_app_log.logcat.txt",
        ])
        XCTAssertEqual(events.first?["category"] as? String, "dissectors.loaded")
        XCTAssertEqual(events.dropFirst().first?["type"] as? String, "log.alignment")
    }
}

extension XCTestCase {
    /// `text` as an app log in a folder of its own, removed after the test.
    func temporaryLog(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.log").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
