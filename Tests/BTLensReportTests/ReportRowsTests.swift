import BTLensCore
import XCTest

@testable import BTLensReport

/// The report's rows packed into chunks read back as they were put in, every part of them.
final class ReportRowsTests: XCTestCase {
    func rows() -> [Report.Row] {
        let plain = Report.Row(
            index: 1, record: 1, offset: "0.000000", arrow: "=", connection: nil, layer: "HCI", text: "Reset")
        var frame = Report.Row(
            index: 2, record: 7, offset: "1.250000", arrow: "<", connection: 0x0040, layer: "A5",
            text: "0x0013 (fff3) SetEQPreset (0x20) seq 39 flags ackWanted preset=custom")
        frame.stream = "0x0013 (fff3)"
        frame.command = "SetEQPreset"
        frame.fields = [("preset", "custom"), ("gain", "-3"), ("", "")]
        frame.dump = .bytes([0x03], length: 1)
        var cut = Report.Row(
            index: 128, record: 16_384, offset: "12.5", arrow: ">", connection: 0xffff, layer: "ATT",
            text: "Handle Value Notification")
        cut.dump = .bytes((0..<64).map { UInt8($0) }, length: 65_528)
        var diagnostic = Report.Row(
            index: Int.max, record: Int.max, offset: "-1.000000", arrow: "!", connection: 0, layer: "!ERRO",
            text: "é \u{1b}[31m \u{202e} 😀")
        diagnostic.severity = .error
        diagnostic.diagnosticId = "a5.checksum"
        diagnostic.fields = [("expected", "0x12")]
        var redacted = Report.Row(
            index: 3, record: 3, offset: "0.1", arrow: "<", connection: 1, layer: "ATT", text: "")
        redacted.hex = "01 [address 1] 02"
        var note = Report.Row(
            index: 4, record: 4, offset: "0.2", arrow: "=", connection: nil, layer: "NOTE",
            text: String(repeating: "x", count: 70_000))
        note.severity = .note
        // A row larger than a chunk, and lengths either side of one LEB128 byte.
        note.fields = [(String(repeating: "k", count: 127), String(repeating: "v", count: 128))]
        var warning = plain
        warning.severity = .warning
        warning.index = 5
        // App log lines: every part, and none of the optional ones.
        var log = Report.Row(
            index: 6, record: 5, offset: "-0.5", arrow: "~", connection: nil, layer: "LOG",
            text: "[BLE] D TX a5 01 = #9")
        log.log = Report.LogLine(
            source: "logs/app.txt", line: 12, level: "D", tag: "BLE", message: "TX a5 01 😀", matchesRecord: 9)
        var bare = log
        bare.log = Report.LogLine(
            source: "", line: 0, level: nil, tag: nil, message: "", matchesRecord: 0)
        var unmatched = log
        unmatched.log?.matchesRecord = nil
        return [plain, frame, cut, diagnostic, redacted, note, warning, log, bare, unmatched]
            + (0..<2_000).map { i in
                var r = frame
                r.index = 10 + i
                r.text += " \(i)"
                return r
            }
    }

    func assertSame(_ a: Report.Row, _ b: Report.Row, _ line: UInt = #line) {
        XCTAssertEqual(a.index, b.index, line: line)
        XCTAssertEqual(a.record, b.record, line: line)
        XCTAssertEqual(a.offset, b.offset, line: line)
        XCTAssertEqual(a.arrow, b.arrow, line: line)
        XCTAssertEqual(a.connection, b.connection, line: line)
        XCTAssertEqual(a.layer, b.layer, line: line)
        XCTAssertEqual(a.text, b.text, line: line)
        XCTAssertEqual(a.severity, b.severity, line: line)
        XCTAssertEqual(a.diagnosticId, b.diagnosticId, line: line)
        XCTAssertEqual(a.stream, b.stream, line: line)
        XCTAssertEqual(a.command, b.command, line: line)
        XCTAssertEqual(a.fields.map(\.0), b.fields.map(\.0), line: line)
        XCTAssertEqual(a.fields.map(\.1), b.fields.map(\.1), line: line)
        XCTAssertEqual(a.hex, b.hex, line: line)
        XCTAssertEqual(a.log, b.log, line: line)
    }

    func testRowsReadBackAsTheyWerePutIn() {
        let given = rows()
        var packed = Report.Rows()
        for r in given { packed.append(r) }
        XCTAssertEqual(packed.count, given.count)
        for (a, b) in zip(given, packed) { assertSame(a, b) }
        XCTAssertEqual(packed[2].hex, Hex.spaced((0..<64).map { UInt8($0) }) + " … (+65464 bytes)")
        XCTAssertEqual(packed[1].hex, "03")
        XCTAssertNil(packed[0].hex)
        // Out of order: each read inflates the chunk it needs.
        for i in given.indices.reversed() where i % 97 == 0 { assertSame(given[i], packed[i]) }
    }

    /// Copies changed apart keep their own rows, however their chunks are sealed and read.
    func testCopiesChangedApartStayApart() {
        var a = Report.Rows()
        for r in rows().prefix(600) { a.append(r) }
        var b = a
        let (first, second) = (rows()[700], rows()[800])
        for _ in 0..<500 {
            a.append(first)
            b.append(second)
        }
        _ = a[a.count - 1]
        XCTAssertEqual(b[b.count - 1].text, second.text)
        XCTAssertEqual(a[a.count - 1].text, first.text)
        XCTAssertEqual(b[900].text, second.text)
        XCTAssertEqual(a[900].text, first.text)
    }

    func testARewriteChangesEveryRowAndKeepsTheRest() {
        let given = rows()
        var packed = Report.Rows()
        for r in given { packed.append(r) }
        packed.rewrite { $0.text = "[" + $0.text + "]" }
        XCTAssertEqual(packed.count, given.count)
        for (a, b) in zip(given, packed) {
            var a = a
            a.text = "[" + a.text + "]"
            assertSame(a, b)
        }
    }

    /// Rows of the benchmark's kind (an A5 frame: 75 bytes of text, three fields, a byte of payload;
    /// 150 bytes packed) take less than their bytes once deflated, not a String object per part.
    func testRowsArePackedAndDeflated() {
        var packed = Report.Rows()
        for r in rows().suffix(2_000) { packed.append(r) }
        XCTAssertLessThan(packed.heldBytes, 2_000 * 100, "\(packed.heldBytes) bytes")
    }
}
