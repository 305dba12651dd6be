import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// Counts in the report and in its line on stderr are in good English: `1 error`, not `1 errors`.
final class ReportCountsTests: XCTestCase {
    func testOneOfAKindIsSingular() throws {
        XCTAssertEqual(
            [Plural.of(0, "error"), Plural.of(1, "error"), Plural.of(2, "error"), Plural.of(1, "entry", "entries")],
            ["0 errors", "1 error", "2 errors", "1 entry"])
        XCTAssertEqual(Plural.of(3, "entry", "entries"), "3 entries")
    }

    /// One connection, two A5 heartbeats, the second's checksum wrong: one diagnostic, an error.
    func testACaptureWithOneErrorSaysSo() throws {
        var s = LESession()
        s.connect(handle: 0x0041, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.frame(handle: 0x0041, attHandle: 0x0015, .received, command: 0x90, sequence: 1, payload: [1])
        s.frame(
            handle: 0x0041, attHandle: 0x0015, .received, command: 0x90, sequence: 2, payload: [2],
            corruptChecksum: true)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("one.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let html = dir.appendingPathComponent("r.html").path
        let run = try runCLI(["report", capture, "-o", html, "--dissectors", DissectorEndToEndTests.shipped])
        XCTAssertTrue(run.stdout.contains("; 1 diagnostic (1 error); timeline: all "), run.stdout + run.stderr)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for card in [
            "<b>1</b><span>error</span>", "<b>1</b><span>connection</span>", "<b>0</b><span>warnings</span>",
        ] {
            XCTAssertTrue(page.contains(card), card)
        }
    }

    /// Thirteen bad heartbeats far apart: the text report shows twelve and says one more is left.
    func testTheTextReportSaysOneMoreDiagnostic() throws {
        var s = LESession()
        s.connect(handle: 0x0041, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        for i in 0..<13 * 6 {
            s.frame(
                handle: 0x0041, attHandle: 0x0015, .received, command: 0x90, sequence: UInt8(i), payload: [1],
                corruptChecksum: i % 6 == 5)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("thirteen.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let text = dir.appendingPathComponent("r.txt").path
        let run = try runCLI(["report", capture, "-o", text, "--dissectors", DissectorEndToEndTests.shipped])
        XCTAssertTrue(run.stdout.contains("; 13 diagnostics (13 errors); "), run.stdout + run.stderr)
        let report = try String(contentsOfFile: text, encoding: .utf8)
        XCTAssertTrue(report.contains("\n(1 more diagnostic in the full timeline: "), report)
    }
}
