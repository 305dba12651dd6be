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

/// Markdown and text hold only the rows around each diagnostic: their timeline line, and the line
/// btlens prints, count those rows, not the HTML's window.
final class TextReportTimelineTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path

    /// The line btlens printed, the file, and the timeline line the file ends with.
    func report(_ capture: String, _ format: String) throws -> (line: String, file: String, said: String) {
        let out = NSTemporaryDirectory() + "btlens-text-timeline-\(UUID().uuidString).\(format)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let run = try runCLI(
            ["report", Self.captures + "/" + capture, "-o", out, "--dissectors", DissectorEndToEndTests.shipped],
            timeout: 30, memoryLimit: 1 << 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        let file = try String(contentsOfFile: out, encoding: .utf8)
        let said = file.split(separator: "\n").last.map(String.init) ?? ""
        return (run.stdout, file, said)
    }

    /// The rows a text report holds: each begins with its record or log line.
    func rows(_ file: String) -> Int {
        file.split(separator: "\n").filter { $0.range(of: "^[#L][0-9]+ ", options: .regularExpression) != nil }.count
    }

    func testACaptureWithoutDiagnosticsSaysItsTextHoldsNoRows() throws {
        for format in ["md", "txt"] {
            let (line, file, said) = try report("ble_a5_session.btsnoop", format)
            XCTAssertEqual(rows(file), 0, file)
            XCTAssertTrue(said.hasPrefix("Timeline: 0 of "), said)
            XCTAssertTrue(said.contains(" events: only those around a diagnostic, and there is none; "), said)
            XCTAssertTrue(line.hasSuffix("; timeline: \(said.dropFirst(10).dropLast())\n"), line)
        }
        // The HTML holds every row, and says so.
        XCTAssertTrue(try report("ble_a5_session.btsnoop", "html").line.contains("; timeline: all "))
    }

    func testTheRowsSaidAreTheRowsWritten() throws {
        let (line, file, said) = try report("ble_a5_faults.btsnoop", "txt")
        let shown = rows(file)
        XCTAssertGreaterThan(shown, 0, file)
        XCTAssertTrue(said.hasPrefix("Timeline: \(shown) of "), said)
        XCTAssertTrue(said.contains(" events: up to 3 on each side of "), said)
        XCTAssertTrue(line.hasSuffix("; timeline: \(said.dropFirst(10).dropLast())\n"), line)
    }
}
