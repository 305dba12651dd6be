import BTLensTestSupport
import Foundation
import XCTest

/// `follow --app-log` as a user runs it: the built CLI following a capture while the app's logcat
/// grows beside it, a line cut across two writes. Every line comes out once, whole; the offset is
/// found from the content; the lines there from the start name their records.
final class AppLogFollowTests: XCTestCase {
    let sample = SampleCaptures.appLogSession()

    func testAGrowingLogIsFollowed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("live.btsnoop")
        try Data(sample.session.bytes).write(to: capture)
        let log = folder.appendingPathComponent("logcat.txt")
        let lines = sample.logcat.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The first 11 lines (the separator and 10 entries, 7 with bytes) are there at the start.
        let first = lines.prefix(11).joined(separator: "\n") + "\n"
        let rest = lines.dropFirst(11).joined(separator: "\n")
        try Data(first.utf8).write(to: log)

        let run = try FollowSignalTests.Running([
            "follow", capture.path, "--app-log", log.path, "--format", "jsonl",
        ])
        XCTAssertTrue(run.waitForOutput("\"type\":\"log.alignment\""), run.stderr)
        XCTAssertTrue(run.waitForOutput("\"line\":11,"), run.stderr)
        // The rest, cut inside a line: the reader holds the part until its end comes.
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        let cut = rest.index(rest.startIndex, offsetBy: rest.count / 2)
        try handle.write(contentsOf: Data(rest[..<cut].utf8))
        usleep(300_000)
        try handle.write(contentsOf: Data((rest[cut...] + "\n").utf8))
        try handle.close()
        XCTAssertTrue(run.waitForOutput("session done"), run.stdout + run.stderr)
        XCTAssertEqual(run.stop(SIGINT, within: 5).map { _ in true }, true)

        let events = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let alignment = try XCTUnwrap(events.first { $0["type"] as? String == "log.alignment" })
        XCTAssertEqual(alignment["method"] as? String, "content")
        XCTAssertEqual(
            try XCTUnwrap(alignment["offset_ms"] as? Double),
            Double(SampleCaptures.AppLogSample.logcatOffsetMicroseconds) / 1000, accuracy: 5)
        let logged = events.filter { $0["type"] as? String == "log" }
        XCTAssertEqual(logged.compactMap { $0["line"] as? Int }, Array(2...14), "every line once, in order")
        XCTAssertEqual(logged.last?["message"] as? String, "session done")
        for l in logged {
            guard let line = l["line"] as? Int, line <= 11 else { continue }
            XCTAssertEqual(l["matches_record"] as? Int, sample.matches[line], "line \(line)")
        }
    }

    /// A log that does not exist yet (`adb logcat > app.log` started after the follow) is waited
    /// for, as the capture is, and read once it appears.
    func testALogThatAppearsLaterIsRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("live.btsnoop")
        try Data(sample.session.bytes).write(to: capture)
        let log = folder.appendingPathComponent("later.txt")
        let run = try FollowSignalTests.Running(["follow", capture.path, "--app-log", log.path, "--format", "jsonl"])
        XCTAssertTrue(run.waitForOutput("\"record\":19,"), run.stderr)
        try Data(sample.logcat.utf8).write(to: log)
        XCTAssertTrue(run.waitForOutput("session done"), run.stdout + run.stderr)
        XCTAssertEqual(run.stop(SIGINT, within: 5).map { _ in true }, true)
        let lines = run.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"log\"") }
        XCTAssertEqual(lines.count, 13, run.stdout)
    }
}
