import BTLensCore
import XCTest

@testable import BTLensFilter

/// Strings in filters mean what they say: Wireshark's escapes (doc/wireshark-filter.adoc,
/// epan/dfilter/scanner.l), raw strings, and what `matches` hands PCRE2.
final class FilterStringTests: XCTestCase {
    private func string(_ expression: String) throws -> String? {
        let tokens = try Lexer.tokens(expression)
        guard case .string(let s) = tokens.first?.kind else { return nil }
        return s
    }

    func testWiresharksEscapes() throws {
        let cases: [(String, String)] = [
            (#""a\\b""#, "a\\b"), (#""say \"hi\"""#, "say \"hi\""), (#"'it\'s'"#, "it's"),
            (#""\a\b\f\n\r\t\v""#, "\u{07}\u{08}\u{0C}\n\r\t\u{0B}"),
            (#""\x41\x4a\x7""#, "AJ\u{07}"), (#""\101\60\0""#, "A0\u{0}"), (#""\xc3\xa9""#, "é"),
            (#""\u00e9\U0001F600""#, "é😀"), (#""\d""#, "\\d"),
        ]
        for (expression, expected) in cases.dropLast() {
            XCTAssertEqual(try string(expression), expected, expression)
        }
        XCTAssertThrowsError(try string(cases.last?.0 ?? ""))
    }

    func testRawStringsKeepBackslashes() throws {
        XCTAssertEqual(try string(#"r"\d+\.\q""#), #"\d+\.\q"#)
        XCTAssertEqual(try string(#"R"a\"b""#), #"a\"b"#)
        XCTAssertEqual(try string(#"r'\w'"#), #"\w"#)
        // A word that begins with r is still a word.
        XCTAssertEqual(try Lexer.tokens("rssi").first?.kind, .word("rssi"))
    }

    /// Each refused escape: the message, and the caret under the escape.
    func testUnknownEscapesAreRefusedWithACaret() {
        let cases: [(String, String, Int, Int)] = [
            (#"message matches "\q""#, #"\q is not a valid character escape sequence"#, 17, 2),
            (#"message matches "a\.b""#, #"\. is not a valid character escape sequence"#, 18, 2),
            (#"message contains "\x""#, #"\x needs 1 or 2 hex digits"#, 18, 2),
            (#"message contains "\u12""#, #"\u needs 4 hex digits"#, 18, 4),
            (#"message contains "\U0011ffff""#, #"\U0011ffff is not a Unicode character"#, 18, 10),
            (#"message contains "\ud800""#, #"\ud800 is not a Unicode character"#, 18, 6),
            (#"message contains "\777""#, #"\777 is past \377, the largest octal byte"#, 18, 4),
            (#"message contains "\xff""#, "the string's escapes make bytes that are not UTF-8", 17, 6),
            (#"message contains "\"#, #"a \ ends the filter: the string is not closed"#, 18, 1),
            (#"message matches r"\"#, "string not closed: a \" is missing", 16, 3),
        ]
        assertRefused(cases)
    }

    func testTheCaretIsUnderTheEscape() {
        XCTAssertEqual(
            FilterError(
                #"\q is not a valid character escape sequence"#, in: #"message matches "\q""#, at: 17, length: 2
            )
            .description,
            """
            invalid filter: \\q is not a valid character escape sequence
              message matches "\\q"
                               ^~
            """)
    }

    /// `matches` hands PCRE2 the string's characters: `"\\d"` and `r"\d"` are the regex `\d`.
    func testRegexEscapesReachTheRegex() throws {
        for expression in [#"message matches "\\d+ bytes""#, #"message matches r"\d+ bytes""#] {
            guard case .matches(_, let p) = try Compiler(expression: expression).compile(Parser.parse(expression))
            else { return XCTFail(expression) }
            XCTAssertEqual(p.regex.pattern, #"\d+ bytes"#)
            XCTAssertTrue(p.matches("cut after 12 bytes"), expression)
            XCTAssertFalse(p.matches("cut after d bytes"), expression)
        }
        let caseless = try Pattern("(?i)^setEQ")
        XCTAssertTrue(caseless.matches("SetEQPreset"))
        XCTAssertFalse(try Pattern("^setEQ").matches("SetEQPreset"))
    }

    func testMatchesOnANonStringFieldIsRefused() {
        let cases: [(String, String, Int, Int)] = [
            (#"sequence matches "1""#, "'matches' looks into strings and bytes; sequence is not one", 0, 8),
            (#"time matches "2023""#, "'matches' looks into strings and bytes; time is not one", 0, 4),
            (#"severity matches "err""#, "'matches' looks into strings and bytes; severity is not one", 0, 8),
            (#"checksum_ok matches "t""#, "'matches' looks into strings and bytes; checksum_ok is not one", 0, 11),
            (
                #"message matches "(a""#,
                "not a regular expression: missing closing parenthesis (at character 2 of the pattern)", 16, 4
            ),
        ]
        assertRefused(cases)
    }

    /// A pattern that backtracks without end stops at its budget, as not found.
    func testAMatchPastItsBudgetIsNotFound() throws {
        let regex = try SharedRegex("(a+)+$", use: "test")
        let start = ContinuousClock.now
        XCTAssertEqual(regex.search(String(repeating: "a", count: 128) + "!"), .overBudget)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
        XCTAssertEqual(regex.search("xaa"), .found([1..<3]))
        XCTAssertEqual(regex.search("b"), .notFound)
    }

    /// A match that needs more than the JIT's stack (1 MiB: a group repeated 40,000 times) is run again by
    /// the interpreter, which finds it within its budget.
    func testAMatchPastTheJITStackIsRunByTheInterpreter() throws {
        let regex = try SharedRegex("^(a|b)*$", use: "test")
        XCTAssertEqual(regex.search(String(repeating: "a", count: 40_000)), .found([0..<40_000]))
    }
}
