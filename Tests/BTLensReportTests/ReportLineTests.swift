import XCTest

@testable import BTLensReport

/// The Markdown and text reports' one escaping point: a value is shown as text, never as markup.
final class ReportLineTests: XCTestCase {
    func testMarkdownEscapesHTMLAndItsOwnSyntax() {
        XCTAssertEqual(ReportLine.markdown("<b>&amp;</b>"), "&lt;b&gt;&amp;amp;&lt;/b&gt;")
        XCTAssertEqual(
            ReportLine.markdown(#"a_b*c `d` [e](f) g|h ~i~ @j $k$ \l"#),
            #"a\_b\*c \`d\` \[e\](f) g\|h \~i\~ \@j \$k\$ \\l"#)
        // GitHub's extended autolinks need `://` or `www.`: neither is left whole.
        XCTAssertEqual(
            ReportLine.markdown("https://x.example WWW.y.example 12:30 v1.2"),
            #"https\://x.example WWW\.y.example 12:30 v1.2"#)
        XCTAssertEqual(ReportLine.markdown("plain (0x20) #4: ok"), "plain (0x20) #4: ok")
        XCTAssertEqual(
            ReportLine.markdown("\u{1b}[31m"), #"\\u{1b}\[31m"#, "terminal escapes first, their backslash escaped")
    }

    func testAValueBeginningALineBeginsNoBlock() {
        XCTAssertEqual(ReportLine.markdownLineStart("# title"), ##"\# title"##)
        XCTAssertEqual(ReportLine.markdownLineStart("- item"), #"\- item"#)
        XCTAssertEqual(ReportLine.markdownLineStart("+ item"), #"\+ item"#)
        XCTAssertEqual(ReportLine.markdownLineStart("==="), #"\==="#)
        XCTAssertEqual(ReportLine.markdownLineStart("12. item"), #"12\. item"#)
        XCTAssertEqual(ReportLine.markdownLineStart("3) item"), #"3\) item"#)
        XCTAssertEqual(ReportLine.markdownLineStart("> quote"), "&gt; quote")
        XCTAssertEqual(ReportLine.markdownLineStart("2023 notes"), "2023 notes")
        let line: ReportLine = "\("# not a heading")"
        XCTAssertEqual(line.written(.markdown), ##"\# not a heading"##)
        XCTAssertEqual(line.written(.text), "# not a heading")
    }

    func testCodeSpansOutlastTheirBackticks() {
        XCTAssertEqual(ReportLine.markdownCode("a5.checksum.bad"), "`a5.checksum.bad`")
        XCTAssertEqual(ReportLine.markdownCode("a`b"), "``a`b``")
        XCTAssertEqual(ReportLine.markdownCode("`x``"), "``` `x`` ```")
        XCTAssertEqual(ReportLine.markdownCode("a|b"), #"`a\|b`"#)
    }

    func testOnlyInterpolatedValuesAreEscaped() {
        let name = "<i>\u{202e}x</i>"
        let line: ReportLine = "- **\(name)** \(code: "a_b") \(ReportLine(stringLiteral: "*kept*"))"
        XCTAssertEqual(line.written(.markdown), #"- **&lt;i&gt;\\u{202e}x&lt;/i&gt;** `a_b` *kept*"#)
        XCTAssertEqual(line.written(.text), #"- **<i>\u{202e}x</i>** a_b *kept*"#)
        XCTAssertEqual(line.written(.code), #"- **<i>\u{202e}x</i>** a_b *kept*"#)
    }
}
