import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// A real phone's app log, as issue 46 found one: the logger's bracketed style, its first value
/// 90 s into the capture (past the minute the first alignment looks at), the capture's clock the
/// phone's local time written as UTC, and two-byte values logged within milliseconds.
final class AppLogRealPhoneTests: XCTestCase {
    /// 2021-04-04 18:49:10 on the capture's clock: the phone's local time (UTC+2) written as UTC.
    static let start: Int64 = 1_617_562_150_000_000
    static let handle: UInt16 = 0x0040

    /// The capture: a connection, Read RSSI every 10 s, then from 90 s a write of `03 2a 5k` every
    /// 3 s, each answered by five notifications within 3 ms (`03 2a`, then `03 21` … `03 24`).
    /// The log: each write logged 2 ms before it, each notification 3 ms after it, in the
    /// phone's true local time with its zone.
    static func session() -> (capture: [UInt8], log: String) {
        // The first record at `start` (each record is 1.25 ms after the time before).
        var s = LESession(start: start - 1_250)
        s.connect(handle: handle, address: [1, 2, 3, 4, 5, 6])
        var lines: [(Int64, String)] = []
        for k in 1...9 {
            s.time = start + Int64(k) * 10_000_000
            s.command(0x1405, [UInt8(handle & 0xff), UInt8(handle >> 8)])
        }
        for k in 0..<4 {
            let write = start + 90_000_000 + Int64(k) * 3_000_000
            let value: [UInt8] = [0x03, 0x2a, 0x50 + UInt8(k)]
            s.time = write - 1_250
            s.att(handle: handle, .sent, [0x52, 0x12, 0x00] + value)
            lines.append((write - 2_000, "addCmdData( \(Hex.spaced(value)) )"))
            for j in 0..<5 {
                let notified = write + 40_000 + Int64(j) * 600
                let short: [UInt8] = [0x03, j == 0 ? 0x2a : 0x20 + UInt8(j)]
                s.time = notified - 1_250
                s.att(handle: handle, .received, [0x1b, 0x15, 0x00] + short)
                lines.append((notified + 3_000, "receive <= \(Hex.spaced(short))"))
            }
        }
        let log = lines.map { "P    [\(localTime($0.0))]        [BASE_CONNECT_LOG    ]    [BytesDataConnect] \($0.1)" }
        return (s.bytes, log.joined(separator: "\n") + "\n")
    }

    /// A capture-clock time as the phone's logger writes it: its true local time, with its zone.
    static func localTime(_ t: Int64) -> String {
        let utc = Timestamp(microseconds: t - 7_200_000_000).iso8601  // 2021-04-04T16:50:40.043000Z
        let date = utc.prefix(10)
        let clock = utc.dropFirst(11).prefix(8)
        let ms = utc.dropFirst(20).prefix(3)
        let hour = Int(clock.prefix(2))! + 2
        return "\(date) \(String(format: "%02d", hour))\(clock.dropFirst(2)).\(ms)+0200"
    }

    private func files(_ log: String? = nil) throws -> (capture: String, log: String) {
        let (capture, whole) = Self.session()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("realphone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let (c, l) = (
            folder.appendingPathComponent("phone.btsnoop").path, folder.appendingPathComponent("app.log").path
        )
        try Data(capture).write(to: URL(fileURLWithPath: c))
        try (log ?? whole).write(toFile: l, atomically: true, encoding: .utf8)
        return (c, l)
    }

    /// The offset is found over the whole capture; every line names its record, the two-byte
    /// ones too, and no value is said not logged.
    func testABracketedLogWhoseValuesComeAfterTheFirstMinuteAligns() throws {
        let (capture, log) = try files()
        let run = try runCLI(["timeline", capture, "--app-log", log])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains(
                "#1           0.000000 ~      - LOG   \(log): its clock + 7200002 ms is the capture's, from 4 lines whose bytes are on the air, over the whole capture"
            ), run.stdout)
        let logged = lines.filter { $0.hasPrefix("L") }
        XCTAssertEqual(logged.count, 24)
        XCTAssertEqual(
            Array(logged.prefix(3)),
            [
                "L1          90.000000 ~      - LOG   [BASE_CONNECT_LOG/BytesDataConnect] P addCmdData( 03 2a 50 ) = #13",
                "L2          90.045000 ~      - LOG   [BASE_CONNECT_LOG/BytesDataConnect] P receive <= 03 2a = #14",
                "L3          90.045000 ~      - LOG   [BASE_CONNECT_LOG/BytesDataConnect] P receive <= 03 21 = #15",
            ])
        XCTAssertTrue(logged.allSatisfy { $0.contains(" = #") }, logged.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("!NOTE app.") || $0.contains("!WARN app.") }, run.stdout)
        // stats aligns the same way, and counts every line as naming a record.
        let stats = try runCLI(["stats", "--format", "json", capture, "--app-log", log])
        let json = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        let logs = try XCTUnwrap(json?["app_logs"] as? [[String: Any]])
        XCTAssertEqual(logs.first?["method"] as? String, "content")
        XCTAssertEqual(logs.first?["matched"] as? Int, 4)
        XCTAssertEqual(logs.first?["lines_matching_records"] as? Int, 24)
    }

    /// A day's log holds the same session again an hour later (the accessory's handshake is the
    /// same at every connection): both agree as well, and the one the log's zone puts on the
    /// capture's clock is taken, whichever comes first in the file.
    func testARepeatedSessionAlignsWhereTheLogsZoneSays() throws {
        let (_, whole) = Self.session()
        let later = whole.replacingOccurrences(of: "2021-04-04 18:", with: "2021-04-04 19:")
        for log in [whole + later, later + whole] {
            let (capture, path) = try files(log)
            let run = try runCLI(["timeline", capture, "--app-log", path])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("its clock + 7200002 ms is the capture's, from 4 lines"), run.stdout)
        }
    }

    /// Values that the first minute carried and the log shows later agree on a wrong offset by
    /// chance, placing 5 lines of the 15 it puts among the first minute's events: not convincing,
    /// so the whole capture is surveyed, and every line names its own record.
    func testAnOffsetFewOfTheLinesItPlacesAgreeOnIsSurveyed() throws {
        var s = LESession(start: Self.start - 1_250)
        s.connect(handle: Self.handle, address: [1, 2, 3, 4, 5, 6])
        func notify(_ at: Int64, _ value: [UInt8]) {
            s.time = Self.start + at - 1_250
            s.att(handle: Self.handle, .received, [0x1b, 0x15, 0x00] + value)
        }
        let repeated = (0..<5).map { [0xa5, 0x10, UInt8($0)] }
        for k in 0..<5 { notify(Int64(10 + 3 * k) * 1_000_000, repeated[k]) }
        var log: [String] = []
        for k in 0..<5 {
            for (at, value) in [
                (100 + 3 * k, [0xb7, 0x20, UInt8(2 * k)]), (101 + 3 * k, repeated[k]),
                (102 + 3 * k, [0xb7, 0x20, UInt8(2 * k + 1)]),
            ] {
                notify(Int64(at) * 1_000_000, value)
                let t = Timestamp(microseconds: Self.start + Int64(at) * 1_000_000).iso8601
                log.append("\(t) [BLE] RX notify \(Hex.spaced(value))")
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let (capture, path) = (
            folder.appendingPathComponent("c.btsnoop").path, folder.appendingPathComponent("a.log").path
        )
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        try (log.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = try runCLI(["timeline", capture, "--app-log", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.contains(
                "LOG   \(path): its clock + 0 ms is the capture's, from 15 lines whose bytes are on the air, over the whole capture"
            ), run.stdout)
        let named = run.stdout.split(separator: "\n").filter { $0.hasPrefix("L") }.map { $0.split(separator: "#").last }
        XCTAssertEqual(named.map { $0.map(String.init) }, (9...23).map { "\($0)" })
    }

    /// A log of the same minutes with no bytes: its zone read as the capture's clock, so that its
    /// lines fall within the capture instead of two hours before it.
    func testALogWithNoBytesIsReadAtTheCapturesLocalClock() throws {
        let (_, whole) = Self.session()
        let plain = whole.replacingOccurrences(of: "03 2a 5", with: "cmd ").replacingOccurrences(
            of: "<= 03", with: "<=")
        let (capture, log) = try files(plain)
        let run = try runCLI(["timeline", "--format", "jsonl", capture, "--app-log", log])
        XCTAssertEqual(run.status, 0, run.stderr)
        let alignment = run.stdout.split(separator: "\n").first { $0.contains("\"log.alignment\"") }
        XCTAssertEqual(
            alignment.map(String.init),
            "{\"type\":\"log.alignment\",\"time\":\"2021-04-04T18:49:10.000000Z\",\"source\":\"\(log)\",\"offset_ms\":7200000.000,\"matched\":0,\"method\":\"local_clock\"}"
        )
        XCTAssertFalse(run.stdout.contains("app.log.outside"), run.stdout)
    }

    /// With the offset given, the two-byte values match as they agree in time and order; the same
    /// lines 150 ms off match nothing (`03 21`, digits alone, needs a value within 100 ms).
    func testTwoByteValuesMatchOnlyNearAndInOrder() throws {
        let (capture, log) = try files()
        let near = try runCLI([
            "timeline", "--format", "jsonl", capture, "--app-log", log, "--app-log-offset", "7200002",
        ])
        let far = try runCLI([
            "timeline", "--format", "jsonl", capture, "--app-log", log, "--app-log-offset", "7200152",
        ])
        func matched(_ out: String, _ shown: String = "receive <= 03 2") -> [Int?] {
            out.split(separator: "\n").filter { $0.contains("\"type\":\"log\"") && $0.contains(shown) }
                .map { line in
                    line.range(of: "\"matches_record\":").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
                        ?? nil
                }
        }
        XCTAssertEqual(
            matched(near.stdout), [14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 26, 27, 28, 29, 30, 32, 33, 34, 35, 36])
        XCTAssertFalse(near.stdout.contains("app.rx.not_logged"), near.stdout)
        let weak = ["03 21", "03 22", "03 23", "03 24"].flatMap { matched(far.stdout, "receive <= \($0)") }
        XCTAssertEqual(weak.count, 16)
        XCTAssertEqual(weak.compactMap { $0 }, [], far.stdout)
        XCTAssertEqual(matched(far.stdout, "receive <= 03 2a"), [14, 20, 26, 32], "a letter makes two pairs bytes")
    }
}
