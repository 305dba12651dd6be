import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensReport

/// Lines fitted to a terminal: cut with `…` to at most its columns, wide characters counted as two.
final class TerminalTextTests: XCTestCase {
    func testFitKeepsWhatFitsAndCutsTheRestWithAnEllipsis() {
        XCTAssertEqual(TerminalText.fit("abcde", columns: 5), "abcde")
        XCTAssertEqual(TerminalText.fit("abcdef", columns: 5), "abcd…")
        XCTAssertEqual(TerminalText.fit("abcdef", columns: 1), "…")
        XCTAssertEqual(TerminalText.fit("", columns: 1), "")
        // `→` and `…` are 3 bytes and one column each.
        XCTAssertEqual(TerminalText.fit("#3 → #58 …", columns: 10), "#3 → #58 …")
        XCTAssertEqual(TerminalText.fit("#3 → #58 (Remote)", columns: 10), "#3 → #58 …")
        // CJK and emoji take two columns; a combining accent belongs to its letter.
        XCTAssertEqual(TerminalText.fit("ab漢字cd", columns: 6), "ab漢…")
        XCTAssertEqual(TerminalText.fit("ab漢字cd", columns: 5), "ab漢…")
        XCTAssertEqual(TerminalText.fit("ab漢字cd", columns: 4), "ab…")
        XCTAssertEqual(TerminalText.fit("ab漢字cd", columns: 8), "ab漢字cd")
        XCTAssertEqual(TerminalText.fit("🎧 Aurora", columns: 5), "🎧 A…")
        XCTAssertEqual(TerminalText.fit("cafe\u{301} crème", columns: 6), "cafe\u{301} …")
    }

    func testTheTimelineSummaryIsCutToTheWidthAndTheColumnsStay() {
        let frame = Frame(
            version: 1, command: 0x20, sequence: 7, flags: 0, payload: Array(0..<40), checksum: 0, expectedChecksum: 0)
        let e = Event(
            record: 12, timestamp: Timestamp(microseconds: 0), direction: .sent, connection: 0x40, isTop: true,
            body: .frame(FrameInfo(frame: frame, transport: .att, attHandle: 0x13, uuid: .bit16(0xfff3))))
        var whole = TextRenderer()
        let line = whole.render(e) ?? ""
        XCTAssertEqual(line.count, 205)
        var fitted = TextRenderer()
        fitted.width = 60
        XCTAssertEqual(fitted.render(e), "#12          0.000000 < 0x0040 A5    0x0013 (fff3) cmd 0x20…\n")
        // Colour codes take no column, and the reset still ends the line.
        var colored = TextRenderer(color: true)
        colored.width = 60
        XCTAssertEqual(
            colored.render(e), "\u{1b}[32m#12          0.000000 < 0x0040 A5    0x0013 (fff3) cmd 0x20…\u{1b}[0m\n")
        // Narrower than the fixed columns: they stay whole, the summary is `…`.
        var narrow = TextRenderer()
        narrow.width = 20
        XCTAssertEqual(narrow.render(e), "#12          0.000000 < 0x0040 A5    …\n")
        var wide = TextRenderer()
        wide.width = 204
        XCTAssertEqual(wide.render(e), line, "a line that fits is whole")
        wide.width = 203
        XCTAssertEqual(wide.render(e), String(line.dropLast(3)) + "…\n", "one column less: cut")
    }
}
