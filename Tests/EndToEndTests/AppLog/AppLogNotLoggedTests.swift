import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// app.rx.not_logged says what an app did not log without drowning it: once per stream where it
/// begins, then the rest of the stream counted in one note; and a value received twice is shown
/// by two identical lines, one each.
final class AppLogNotLoggedTests: XCTestCase {
    func events(_ capture: [UInt8], log: String) throws -> [[String: Any]] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "notlogged-\(UUID().uuidString).btsnoop")
        try Data(capture).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let run = try runCLI(["timeline", "--format", "jsonl", url.path, "--app-log", try temporaryLog(log)])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The app logs its first notification only: the second is said where it is, the other four
    /// (the battery event among them) together at the end, with their records.
    func testAStreamTheAppStopsLoggingIsSaidOnceThenCounted() throws {
        let sample = SampleCaptures.appLogSession()
        var firstRX = true
        let lines = sample.logcat.split(separator: "\n").filter { line in
            guard line.contains("RX notify") else { return true }
            defer { firstRX = false }
            return firstRX
        }
        let all = try events(sample.session.bytes, log: lines.joined(separator: "\n") + "\n")
        let said = all.filter { $0["id"] as? String == "app.rx.not_logged" }
        XCTAssertEqual(said.count, 2, "\(said)")
        let received = sample.matches.sorted { $0.key < $1.key }.map(\.value).filter { r in
            all.contains {
                $0["type"] as? String == "att" && $0["record"] as? Int == r && $0["direction"] as? String == "received"
            }
        }
        let unlogged = (Array(received.dropFirst()) + sample.notLogged).sorted()
        XCTAssertEqual(said.first?["record"] as? Int, unlogged.first)
        let later = try XCTUnwrap(said.last)
        XCTAssertEqual(later["count"] as? Int, unlogged.count - 1)
        XCTAssertEqual(later["first_record"] as? Int, unlogged.first)
        XCTAssertEqual(later["records"] as? String, unlogged.dropFirst().map { "#\($0)" }.joined(separator: ", "))
        XCTAssertEqual(
            later["message"] as? String,
            "\(unlogged.count - 1) more values received on 0x0040 ATT 0x0015 after #\(unlogged[0]) that no log line shows within 2 s: \(later["records"] as? String ?? "")"
        )
    }

    /// The same notification twice, 200 ms apart, and a log in whole seconds that shows it twice:
    /// each line shows one of them, so neither is said not logged.
    func testTwoIdenticalValuesAreShownByTwoIdenticalLines() throws {
        var s = LESession()
        s.connect(handle: 0x0040, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        let value: [UInt8] = [0xa5, 0x01, 0x05, 0x44, 0x00, 0x03, 0x02, 0x5a, 0x64, 0xb2]
        s.time += 100_000
        s.att(handle: 0x0040, .received, [0x1b, 0x15, 0x00] + value)
        s.time += 200_000
        s.att(handle: 0x0040, .received, [0x1b, 0x15, 0x00] + value)
        s.disconnect(handle: 0x0040)
        let line = "2023-11-14 22:13:20 +0000 [BLE] RX notify fff4: \(Hex.string(value))\n"
        let all = try events(s.bytes, log: line + line)
        XCTAssertEqual(all.filter { $0["id"] as? String == "app.rx.not_logged" }.count, 0)
        XCTAssertEqual(
            all.filter { $0["type"] as? String == "log" }.compactMap { $0["matches_record"] as? Int }.count, 2)
    }
}
