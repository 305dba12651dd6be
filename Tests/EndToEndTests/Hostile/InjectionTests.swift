import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// Strings from a capture are data, never markup or terminal commands: a hostile name in every place
/// a name can come from reaches every output escaped. Terminal and text outputs show control
/// characters, ANSI sequences and bidi overrides as `\u{…}`; JSON as `\u00…`; HTML also escapes markup;
/// Markdown escapes HTML and its own syntax, so a ticket tracker shows the string, never markup or a link.
final class InjectionTests: XCTestCase {
    static let hostile =
        "<script>alert(1)</script><img src=x onerror=alert(1)>[x](https://evil.example)|`*_@me"
        + "\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}gnp.exe\u{9b}31m"
    /// `hostile` in a Markdown report: entities for HTML, a backslash before Markdown's syntax (the
    /// `:` of a URL scheme, so no autolink), and the terminal escapes' backslashes doubled.
    static let hostileMarkdown =
        #"&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;\[x\](https\://evil.example)\|\`\*\_\@me"#
        + #"\\u{1b}\[2J\\u{1b}\]0;owned\\u{7}\\u{202e}gnp.exe\\u{9b}31m"#

    /// Every output btlens writes for a capture: timeline text and JSONL (verbose), stats text and
    /// JSON, and the report in its four formats.
    func outputs(_ bytes: [UInt8], dissectors: DissectorTable = .builtIn) throws -> [(String, String)] {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let builder = ReportBuilder(file: "capture", info: reader.info)
        let stats = StatsCollector(file: "capture", info: reader.info)
        var text = TextRenderer(verbose: true, color: true)
        let jsonl = JSONLRenderer(verbose: true)
        var timeline = ""
        var lines: [UInt8] = []
        let analyzer = try Pipeline.run(
            &reader, Configuration(dissectors: dissectors),
            onRecord: {
                builder.record($0)
                stats.record($0)
            }
        ) { e in
            builder.event(e)
            stats.event(e)
            timeline += text.render(e) ?? ""
            lines += jsonl.render(e) ?? []
        }
        let report = builder.finish(
            connections: analyzer.connections.all, gatt: analyzer.gatt, advertisers: analyzer.advertisers)
        let (connections, advertisers) = (analyzer.connections.all, analyzer.advertisers)
        return [
            ("timeline", timeline), ("jsonl", String(decoding: lines, as: UTF8.self)),
            ("stats", stats.text(connections: connections, advertisers: advertisers)),
            ("stats json", stats.json(connections: connections, advertisers: advertisers)),
            ("report html", ReportHTML.render(report, generator: "test")),
            ("report md", ReportText.render(report, markdown: true)),
            ("report txt", ReportText.render(report, markdown: false)),
            ("report json", String(decoding: ReportJSON.render(report), as: UTF8.self)),
        ]
    }

    /// No raw control, bidi or C1 character and no live markup anywhere; the string is there, escaped.
    func assertEscaped(
        _ outputs: [(String, String)], place: String, mustAppearIn: Set<String>,
        text: String = #"\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}gnp.exe\u{9b}31m"#,
        json: String = #"\u001b[2J\u001b]0;owned\u0007\u202egnp.exe\u009b31m"#,
        markdown: String = hostileMarkdown,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for (name, output) in outputs {
            let bad = output.unicodeScalars.first { s in
                (s.value < 0x20 && s != "\n" && !(name == "timeline" && s == "\u{1b}"))
                    || (0x7f...0x9f).contains(s.value)
                    || (0x202a...0x202e).contains(s.value) || (0x2066...0x2069).contains(s.value)
            }
            XCTAssertNil(
                bad, "\(place): raw U+\(String(bad?.value ?? 0, radix: 16)) in \(name)", file: file, line: line)
            if name == "report html" {
                XCTAssertFalse(
                    output.contains("<script>alert"), "\(place): live markup in \(name)", file: file, line: line)
            }
            if name == "report md" {
                // Fenced timeline lines are shown as they are; everywhere else no markup, link or HTML.
                let prose = Self.outsideFences(output)
                for live in ["<script", "<img", "](https://", "[x]", "`*"] {
                    XCTAssertFalse(
                        prose.contains(live), "\(place): live Markdown \(live) in \(name)", file: file, line: line)
                }
            }
            if name == "timeline" {
                // The renderer's own colours are the only escape sequences: none from the capture.
                XCTAssertFalse(
                    output.contains("\u{1b}[2J") || output.contains("\u{1b}]0;"), "\(place): ANSI from the capture",
                    file: file, line: line)
            }
            guard mustAppearIn.contains(name) else { continue }
            let marker = name.hasSuffix("json") || name == "jsonl" ? json : name == "report md" ? markdown : text
            XCTAssertTrue(
                output.contains(marker), "\(place): the escaped string is missing from \(name)", file: file, line: line)
        }
    }

    /// A Markdown document without its fenced code blocks.
    static func outsideFences(_ md: String) -> String {
        var inFence = false
        return md.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") {
                inFence.toggle()
                return false
            }
            return !inFence
        }.joined(separator: "\n")
    }

    func testGATTDeviceInformationStrings() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        // Manufacturer Name String (0x2A29) at value handle 0x0003.
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x29, 0x2a])
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + Array(Self.hostile.utf8))
        assertEscaped(try outputs(s.bytes), place: "Manufacturer Name", mustAppearIn: ["timeline", "jsonl"])
    }

    func testIAP2IdentificationStrings() throws {
        let bytes = SampleCaptures.bredrIAP2(accessoryName: Self.hostile).bytes
        assertEscaped(
            try outputs(bytes), place: "iAP2 identification",
            mustAppearIn: ["timeline", "jsonl", "stats", "stats json", "report md", "report txt"])
    }

    /// The GAP Device Name (the connection's name) and an advertised Local Name (the advertiser's).
    func testDeviceNames() throws {
        var s = LESession()
        let ad: [UInt8] = [UInt8(1 + Self.hostile.utf8.count), 0x09] + Array(Self.hostile.utf8)
        s.event(0x3e, [0x02, 0x01, 0x00, 0x00, 1, 2, 3, 4, 5, 6, UInt8(ad.count)] + ad + [UInt8(bitPattern: -60)])
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        // Device Name (0x2A00) at value handle 0x0003, then a read of it.
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2a])
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + Array(Self.hostile.utf8))
        let out = try outputs(s.bytes)
        assertEscaped(
            out, place: "device names", mustAppearIn: ["timeline", "jsonl", "stats", "report md", "report txt"])
        let md = out.first { $0.0 == "report md" }?.1 ?? ""
        XCTAssertTrue(md.contains("- Connection 0x0040 06:05:04:03:02:01 \"\(Self.hostileMarkdown)\" LE:"), md)
        XCTAssertTrue(md.contains("- Advertising: 06:05:04:03:02:01 \"\(Self.hostileMarkdown)\": 1 report"), md)
    }

    func testPacketLoggerNotes() throws {
        var file: [UInt8] = []
        func record(_ type: UInt8, _ payload: [UInt8]) {
            let length = UInt32(9 + payload.count)
            for v in [length, 1_700_000_000, 0] as [UInt32] {
                file += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
            }
            file += [type] + payload
        }
        // A note with C0 controls is shown as hex by the reader; one with bidi and C1 characters as text, escaped.
        record(0xfc, Array("Product: <script>alert(1)</script>\u{202e}gnp.exe\u{9b}31m".utf8))
        record(0x00, [0x03, 0x0c, 0x00])
        record(0x01, [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00])
        record(0xfc, Array(Self.hostile.utf8))
        let out = try outputs(file)
        assertEscaped(
            out, place: "PacketLogger note",
            mustAppearIn: ["timeline", "jsonl", "stats", "stats json", "report md", "report txt"],
            text: #"\u{202e}gnp.exe\u{9b}31m"#, json: #"\u202egnp.exe\u009b31m"#,
            markdown: #"Product: &lt;script&gt;alert(1)&lt;/script&gt;\\u{202e}gnp.exe\\u{9b}31m"#)
        XCTAssertTrue(out[0].1.contains("Note: 114 bytes: 3c7363726970743e"), "the note with controls, as hex")
    }

    func testA5PayloadText() throws {
        let definition = """
            protocol: hostile-text
            bind:
              characteristics:
                - {uuid: fff4, role: event}
            framing: a5
            messages:
              - id: 0x05
                name: DeviceName
                from: accessory
                seq:
                  - {id: name, type: str, size: eos}
            """
        var table = DissectorTable.builtIn
        try table.register(DefinitionLoader.load(text: definition, file: "hostile.yaml"))
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x14, 0x00, 0x10, 0x15, 0x00, 0xf4, 0xff])
        s.frame(
            handle: 0x40, attHandle: 0x0015, .received, command: 0x05, sequence: 1, payload: Array(Self.hostile.utf8),
            values: [40, 40, 64])
        let out = try outputs(s.bytes, dissectors: table)
        assertEscaped(out, place: "A5 payload text", mustAppearIn: ["timeline", "jsonl", "report html", "report json"])
    }
}
