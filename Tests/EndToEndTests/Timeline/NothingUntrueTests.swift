import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// What the built CLI says of captures that could mislead it: each fact it cannot know is said
/// as unknown, and what a smaller or restarted capture shows is what the capture holds.
final class NothingUntrueTests: XCTestCase {
    private var files: [String] = []

    override func tearDown() {
        for f in files { try? FileManager.default.removeItem(atPath: f) }
        files = []
    }

    /// `bytes` written to a new temporary file named `name`.
    func temporary(_ name: String, _ bytes: [UInt8] = []) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        files.append(path)
        return path
    }

    /// 260 devices advertise, 2 reports each: `stats` lists the first 256 and counts the 4 past them
    /// and their 8 reports, in JSON as in text.
    func testAdvertisersPastTheTableAreCountedNotDropped() throws {
        var s = LESession()
        for device in 0..<260 {
            // LE Advertising Report (Core Vol 4 Part E §7.7.65.2): 1 report, ADV_IND, public address,
            // no data, RSSI -70.
            let address: [UInt8] = [UInt8(device & 0xff), UInt8(device >> 8), 0, 0, 0, 0xc0]
            for _ in 0..<2 { s.event(0x3e, [0x02, 0x01, 0x00, 0x00] + address + [0x00, UInt8(bitPattern: -70)]) }
        }
        let capture = try temporary("advertisers.btsnoop", s.bytes)
        let json = try runCLI(["stats", "--format", "json", capture])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["advertisers"] as? [Any])?.count, 256)
        XCTAssertEqual(object["advertisers_not_listed"] as? Int, 4)
        XCTAssertEqual(object["advertiser_reports_not_listed"] as? Int, 8)
        XCTAssertNil(object["advertisers_not_listed_at_least"])
        let text = try runCLI(["stats", capture])
        XCTAssertTrue(
            text.stdout.contains("Advertisers: 256 (and 4 more devices past 256, with 8 reports, not listed)\n"),
            text.stdout)
        // The report's JSON counts them too; its text summary lists 20 and says what it leaves out.
        let reportJSON = try temporary("report.json")
        XCTAssertEqual(try runCLI(["report", capture, "-o", reportJSON]).status, 0)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportJSON))) as? [String: Any]
        )
        XCTAssertEqual(report["advertisers_not_listed"] as? Int, 4)
        XCTAssertEqual(report["advertiser_reports_not_listed"] as? Int, 8)
        let reportText = try temporary("report.txt")
        XCTAssertEqual(try runCLI(["report", capture, "-o", reportText]).status, 0)
        let summary = try String(contentsOfFile: reportText, encoding: .utf8)
        XCTAssertTrue(
            summary.contains(
                "… 236 more devices advertising, in the JSON report (and 4 more devices past 256, with 8 reports, not listed)"
            ), summary)
    }

    /// An LE link already open when the capture began, its 243-byte writes as an iPhone's.
    func testTheMTUOfALinkThatBeganBeforeTheCaptureIsUnknown() throws {
        var s = LESession()
        s.att(handle: 0x40, .sent, [0x52, 0x03, 0x00] + [UInt8](repeating: 1, count: 240))
        let capture = try temporary("inferred.btsnoop", s.bytes)
        let text = try runCLI(["stats", capture])
        XCTAssertTrue(text.stdout.contains("MTU unknown (no exchange since the capture began)"), text.stdout)
        XCTAssertFalse(text.stdout.contains("MTU 23"), text.stdout)
        let json = try runCLI(["stats", "--format", "json", capture])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let connection = try XCTUnwrap((object?["connections"] as? [[String: Any]])?.first)
        XCTAssertTrue(connection["att_mtu"] is NSNull, "\(connection)")
        XCTAssertEqual(connection["att_mtu_default"] as? Bool, false)
    }

    /// An Android filtered log as AOSP's SnoopLogger writes it: 14 bytes counting the H4 byte.
    func testAFilteredLogWhoseCutsCountTheH4ByteIsSaid() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        let pdu: [UInt8] = [0x52, 0x13, 0x00] + [UInt8](repeating: 7, count: 30)
        for _ in 0..<3 {
            s.acl(handle: 0x40, .sent, boundary: 0b10, [UInt8(pdu.count), 0, 4, 0] + pdu, cutTo: 9)
        }
        let run = try runCLI(["timeline", try temporary("filtered.btsnoop", s.bytes)])
        let said = "!NOTE capture.android_filtered: ACL packets cut to 13 bytes (14 with the H4 byte)"
        XCTAssertTrue(run.stdout.contains(said), run.stdout)
        XCTAssertFalse(run.stdout.contains("capture.truncated"), run.stdout)
    }

    /// Notifications kept by `convert -Y` keep the CCCD write that subscribed to them: the smaller
    /// capture does not say they came unsubscribed.
    func testConvertKeepsTheSubscriptionOfTheNotificationsItKeeps() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x14, 0x00, 0x10, 0x15, 0x00, 0xf4, 0xff])
        s.att(handle: 0x40, .sent, [0x04, 0x16, 0x00, 0x16, 0x00])
        s.att(handle: 0x40, .received, [0x05, 0x01, 0x16, 0x00, 0x02, 0x29])
        s.att(handle: 0x40, .sent, [0x12, 0x16, 0x00, 0x01, 0x00])
        s.att(handle: 0x40, .received, [0x13])
        for i in 0..<3 { s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00, UInt8(i)]) }
        s.disconnect(handle: 0x40)
        let whole = try temporary("whole.btsnoop", s.bytes)
        let small = try temporary("small.btsnoop")
        let run = try runCLI(["convert", whole, "-o", small, "-Y", "att && opcode == 0x1b"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("selects 3 events"), run.stdout)
        XCTAssertFalse(run.stdout.contains("records left out"), run.stdout)
        let findings = try runCLI(["timeline", "--format", "jsonl", "-Y", "diagnostic", small])
        XCTAssertEqual(findings.stdout, "", "the smaller capture finds nothing the whole one does not")
        let lines = try runCLI(["timeline", small]).stdout
        XCTAssertTrue(lines.contains("Write Request 0x0016"), lines)
    }

    /// Over every sample, a filter of each layer: the smaller capture finds nothing the whole does
    /// not (an SDU's K-frames, an iAP2 packet's RFCOMM frames and what set them up are kept).
    func testConvertOfEverySampleFindsNothingNew() throws {
        let folder = JSONContractTests.root.appendingPathComponent("Captures").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".btsnoop") }
        XCTAssertGreaterThanOrEqual(samples.count, 10)
        let small = try temporary("small.btsnoop")
        for name in samples.sorted() {
            for filter in ["a5", "hci.event", "rfcomm", "hfp"] {
                let run = try runCLI(["convert", folder + "/" + name, "-o", small, "-Y", filter])
                XCTAssertEqual(run.status, 0, "\(name) \(filter): \(run.stderr)")
                XCTAssertFalse(run.stdout.contains("records left out"), "\(name) \(filter): \(run.stdout)")
            }
        }
    }

    /// What records left out make the smaller capture show (a gap in the frames kept) is said.
    func testConvertSaysWhatTheSmallerCaptureShowsThatTheWholeDoesNot() throws {
        let whole = JSONContractTests.root.appendingPathComponent("Captures/ble_a5_session.btsnoop").path
        let small = try temporary("small.btsnoop")
        let run = try runCLI(["convert", whole, "-o", small, "-Y", "a5 && sequence in {7, 9}"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let said = "; records left out make it show what the whole capture does not: "
        XCTAssertTrue(run.stdout.contains(said), run.stdout)
        XCTAssertTrue(run.stdout.contains("1 a5.sequence.gap"), run.stdout)
        // A request kept keeps its response: it was answered.
        let answered = try runCLI(["convert", whole, "-o", small, "-Y", "a5 && command == 0x20"])
        XCTAssertFalse(answered.stdout.contains("records left out"), answered.stdout)
    }

    /// `--fail-on` judges what `--filter` keeps: a filter that selects no diagnostic finds none.
    func testFailOnJudgesTheDiagnosticsTheFilterSelects() throws {
        let faults = JSONContractTests.root.appendingPathComponent("Captures/ble_a5_faults.btsnoop").path
        let report = try temporary("report.json")
        for command in [["timeline"], ["stats"], ["stats", "--format", "json"], ["report", "-o", report]] {
            let none = try runCLI(command + ["--fail-on", "note", "-Y", "hci.command", faults])
            XCTAssertEqual(none.status, 0, "\(command): \(none.stderr)")
            let warnings = try runCLI(command + ["--fail-on", "error", "-Y", "severity == warning", faults])
            XCTAssertEqual(warnings.status, 0, "\(command): \(warnings.stderr)")
            let failed = try runCLI(command + ["--fail-on", "warning", "-Y", "severity == warning", faults])
            XCTAssertEqual(failed.status, 3, "\(command)")
            XCTAssertTrue(failed.stderr.contains("(worst: warning)"), failed.stderr)
            XCTAssertEqual(try runCLI(command + ["--fail-on", "error", faults]).status, 3, "\(command)")
        }
    }

    /// An iPhone's PacketLogger file: its header notes five days older than a minute of traffic.
    func testTheTimeOriginAndSpanAreTheTraffics() throws {
        let notes: Int64 = 1_785_000_000_000_000
        let traffic = notes + 5 * 86_400_000_000
        var p = PacketLoggerWriter()
        for (i, fact) in ["Product: iPhone17,2", "Software: Version 27.0"].enumerated() {
            p.note(fact, time: notes + Int64(i) * 1000)
        }
        p.event([0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00], time: traffic)
        p.event([0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00], time: traffic + 60_000_000)
        let capture = try temporary("iphone.pklg", p.bytes)
        let stats = try runCLI(["stats", capture]).stdout
        XCTAssertTrue(stats.contains("(60.000000 s)"), stats)
        XCTAssertTrue(stats.contains("Product: iPhone17,2"), stats)
        let json = try runCLI(["stats", "--format", "json", capture]).stdout
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["first_time"] as? String, Timestamp(microseconds: traffic).iso8601)
        XCTAssertEqual(object["last_time"] as? String, Timestamp(microseconds: traffic + 60_000_000).iso8601)
        // The timeline counts from the traffic; the notes keep their own times, before it.
        let lines = try runCLI(["timeline", capture]).stdout.split(separator: "\n")
        let product = lines.first { $0.contains("iPhone17,2") }
        XCTAssertTrue(product?.hasPrefix("#1       -432000.000000 =") == true, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("#3           0.000000 >") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("#4          60.000000 >") }, "\(lines)")
        // reltime is that column: the notes before the traffic are at a negative time.
        for format in ["text", "jsonl"] {
            let minute = try runCLI(["timeline", "--format", format, "-Y", "reltime >= 59", capture]).stdout
            XCTAssertEqual(minute.split(separator: "\n").count, 1, minute)
            let before = try runCLI(["timeline", "--format", format, "-Y", "reltime < -400000", capture]).stdout
            // The two notes, and the dissectors.loaded note said at the first one's time.
            XCTAssertEqual(before.split(separator: "\n").count, 3, before)
        }
        let report = try temporary("report.json")
        XCTAssertEqual(try runCLI(["report", capture, "-o", report]).status, 0)
        let page = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        XCTAssertEqual(page["first_time"] as? String, Timestamp(microseconds: traffic).iso8601)
        let rows = ((page["timeline"] as? [String: Any])?["rows"] as? [[String: Any]]) ?? []
        XCTAssertEqual(rows.first { $0["record"] as? Int == 3 }?["offset"] as? String, "0.000000")
    }

    /// The real iPhone capture of ../shared (skipped without it): header notes 8.8 days before 23 s of
    /// traffic on links that began before the capture.
    func testTheRealIPhoneCaptureSaysItsSpanAndUnknownMTUs() throws {
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("evenG2_test.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let stats = try runCLI(["stats", capture]).stdout
        XCTAssertTrue(stats.contains("(23.033000 s)"), stats)
        XCTAssertFalse(stats.contains("MTU 23"), stats)
        XCTAssertTrue(stats.contains("first ATT #74; MTU unknown"), stats)
    }

    /// A followed file replaced by one whose times are an hour earlier (a phone's clock set back):
    /// the timeline says where the new file begins and counts its seconds from it, never negative.
    func testFollowSaysWhereTheSourceStartsOverAndCountsFromIt() throws {
        let path = try temporary("followed.btsnoop", SampleCaptures.session().bytes)
        defer { unlink(path + ".last") }
        var earlier = LESession(start: 1_700_000_000_000_000 - 3_600_000_000)
        earlier.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        earlier.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 0x01])
        earlier.disconnect(handle: 0x40)
        let run = try FollowSignalTests.Running(["follow", path, "--color", "never"])
        XCTAssertTrue(run.waitForOutput("#58 "), run.stdout)
        rename(path, path + ".last")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(earlier.bytes)))
        XCTAssertTrue(run.waitForOutput("Disconnected 06:05:04:03:02:01"), run.stdout)
        _ = run.stop(SIGINT, within: 5)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let marker = try XCTUnwrap(lines.firstIndex { $0.contains("follow.restart") }, run.stdout)
        let said = "#1           0.000000 =      - NOTE  follow.restart: \(path) was replaced: following the new file"
        XCTAssertEqual(lines[marker], said)
        let seconds = lines[(marker + 1)...].compactMap { $0.split(separator: " ").dropFirst().first }
        XCTAssertFalse(seconds.isEmpty)
        XCTAssertTrue(seconds.allSatisfy { !$0.hasPrefix("-") }, run.stdout)
        XCTAssertTrue(lines[marker + 1].hasPrefix("#1           0.000000 <"), lines[marker + 1])
    }

    /// `follow` on an iPhone's PacketLogger file counts from its traffic too, not from its header notes.
    func testFollowCountsFromTheTrafficNotTheHeaderNotes() throws {
        let notes: Int64 = 1_785_000_000_000_000
        var p = PacketLoggerWriter()
        p.note("Product: iPhone17,2", time: notes)
        p.event([0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00], time: notes + 86_400_000_000)
        p.event([0x0e, 0x04, 0x01, 0x05, 0x0c, 0x00], time: notes + 86_402_000_000)
        // A stream is taken for PacketLogger once five records look like it.
        for i in 0..<3 { p.event([0x0e, 0x04, 0x01, 0x05, 0x0c, 0x00], time: notes + 86_403_000_000 + Int64(i)) }
        let run = try FollowSignalTests.Running(["follow", try temporary("live.pklg", p.bytes), "--color", "never"])
        XCTAssertTrue(run.waitForOutput("#3 "), run.stdout)
        _ = run.stop(SIGINT, within: 5)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("#1       -86400.000000 =") && $0.contains("iPhone17,2") }, run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("#2           0.000000 >") }, run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("#3           2.000000 >") }, run.stdout)
    }
}
