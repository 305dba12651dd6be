import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens report`: what each format holds, redaction, escaping, the timeline window, and the HTML
/// in a real browser (skipped where Chromium is not installed).
final class ReportTests: XCTestCase {
    func report(_ bytes: [UInt8], _ options: ReportBuilder.Options = ReportBuilder.Options()) throws -> Report {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let builder = ReportBuilder(file: "capture.btsnoop", info: reader.info, options: options)
        let table = DefinitionLoader.load([DissectorEndToEndTests.shipped], required: true).table
        let analyzer = try Pipeline.run(
            &reader, Configuration(dissectors: table),
            onRecord: builder.record, onEvent: builder.event)
        return builder.finish(connections: analyzer.connectionSummaries, gatt: analyzer.gatt)
    }

    /// A page of 2,000 rows is handed out in pieces of about `Report.piece` bytes, not held whole,
    /// and the pieces are the page.
    func testLongPagesAreWrittenInPieces() throws {
        var w = BTSnoopWriter()
        // HCI Number Of Completed Packets (Core Vol 4 Part E §7.7.19): handle 0x0040, 1 packet.
        for i in 0..<2_000 { _ = w.add(.event, .received, [0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00], time: Int64(i)) }
        let r = try report(w.bytes)
        var html: [String] = []
        ReportHTML.write(r, generator: "test") { html.append($0) }
        var json: [[UInt8]] = []
        ReportJSON.write(r) { json.append(Array($0)) }
        for (name, sizes) in [("html", html.map(\.utf8.count)), ("json", json.map(\.count))] {
            XCTAssertGreaterThan(sizes.count, 1, "\(name): \(sizes)")
            XCTAssertLessThan(sizes.max() ?? 0, Report.piece + 4096, "\(name): \(sizes)")
        }
        XCTAssertEqual(html.joined(), ReportHTML.render(r, generator: "test"))
        XCTAssertEqual(Array(json.joined()), ReportJSON.render(r))
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json.joined())))
    }

    func all(_ r: Report) -> [String] {
        [
            ReportHTML.render(r, generator: "test"), ReportText.render(r, markdown: true),
            ReportText.render(r, markdown: false),
            String(decoding: ReportJSON.render(r), as: UTF8.self),
        ]
    }

    func testDiagnosticsAreListedWithTheirRecordsInEveryFormat() throws {
        let r = try report(SampleCaptures.faults().bytes)
        XCTAssertEqual(
            r.diagnostics.map { "\($0.id) \($0.records)" }.sorted(),
            [
                "a5.checksum.bad [5]", "a5.payload.short [10]", "a5.request.unanswered [25]", "a5.resync [9]",
                "a5.sequence.duplicate [7]", "a5.sequence.gap [8, 14, 17]", "a5.truncated [15, 24]",
                "att.malformed [23]",
                "att.opcode.unknown [22]", "capture.truncated [16]", "l2cap.incomplete [25]", "l2cap.overlength [21]",
                "l2cap.unexpected_continuation [18]", "l2cap.unexpected_start [20]",
            ])
        let json = String(decoding: ReportJSON.render(r), as: UTF8.self)
        XCTAssertTrue(json.hasPrefix(#"{"schema":"btlens-report","version":1,"#))
        XCTAssertTrue(
            json.contains(#"{"id":"a5.request.unanswered","severity":"warning","count":7,"records":[25],"#), json)
        let md = ReportText.render(r, markdown: true)
        XCTAssertTrue(
            md.contains(
                "| error | `a5.checksum.bad` | 1 | #5 | command 0x20 sequence 2: checksum 0xcc, expected 0xcb |"), md)
        XCTAssertTrue(
            md.contains(
                "#5       0.005000 < 0x0041 !ERRO a5.checksum.bad: command 0x20 sequence 2: checksum 0xcc, expected 0xcb"
            ), md)
        // In the HTML each record links to its row, and that row is the diagnostic's.
        let html = ReportHTML.render(r, generator: "test")
        guard let link = html.range(of: ##"<a href="#r(\d+)">#5</a>"##, options: .regularExpression) else {
            return XCTFail("no link to #5")
        }
        let anchor = html[link].dropFirst(11).prefix { $0 != "\"" }
        XCTAssertTrue(html.contains(#"<tr id="r\#(anchor)" data-record="5" data-layer="DIAG""#), String(anchor))
    }

    func testRedactionLeavesNoAddressOrSerialAnywhere() throws {
        var options = ReportBuilder.Options()
        options.redact = true
        for session in [SampleCaptures.session(), SampleCaptures.bredrIAP2()] {
            let r = try report(session.bytes, options)
            XCTAssertTrue(r.redacted)
            for text in all(r) {
                let lower = text.lowercased()
                for leak in [
                    "aa:bb:cc:11:22:33", "aa bb cc 11 22 33", "33 22 11 cc bb aa", "aabbcc112233", "332211ccbbaa",
                    // The serial as text, and as the hex of the identification's raw parameters.
                    "lw0001", "4c5730303031", "4c 57 30 30 30 31",
                ] {
                    XCTAssertFalse(lower.contains(leak), "\(leak) in \(text.prefix(80))")
                }
                // Markdown escapes the brackets: the placeholder is text, not a link.
                XCTAssertTrue(text.contains("[address 1]") || text.contains(#"\[address 1\]"#))
            }
        }
        let iap2 = try report(SampleCaptures.bredrIAP2().bytes, options)
        XCTAssertEqual(iap2.accessories.first?.serial, "[serial 1]")
    }

    func testHostileStringsAreEscapedEverywhere() throws {
        let hostile = "<script>alert(1)</script>\u{1b}[31mRED\u{202e}evil\"'&"
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        // MTU 247 (the name is longer than a default-MTU read), discovery of Device Name (0x2A00) at
        // value handle 0x0003, then a read of it.
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2a])
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + Array(hostile.utf8))
        let r = try report(s.bytes)
        XCTAssertEqual(r.connections.first?.name, hostile, "the device name is the connection's name")
        let html = ReportHTML.render(r, generator: "test")
        XCTAssertFalse(html.contains("<script>alert"))
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;\\u{1b}[31mRED\\u{202e}evil&quot;&#39;&amp;"
        XCTAssertTrue(html.contains("<td>\(escaped)</td>"), "in the connections table")
        // In the timeline, quoted for its quote, which is escaped: text="…evil\"'&".
        let quoted = escaped.replacingOccurrences(of: "evil&quot;", with: "evil\\&quot;")
        XCTAssertTrue(html.contains("text=&quot;" + quoted + "&quot;"), "in the timeline")
        XCTAssertEqual(html.components(separatedBy: "<script>").count, 2, "one script: the report's own")
        for text in all(r) {
            XCTAssertFalse(
                text.unicodeScalars.contains { $0 == "\u{1b}" || $0 == "\u{202e}" }, "raw control or bidi character")
        }
        let json = String(decoding: ReportJSON.render(r), as: UTF8.self)
        XCTAssertTrue(json.contains(#"\u001b[31mRED\u202eevil"#), json)
    }

    func testTheTimelineKeepsAWindowAroundEachDiagnosticAndSaysSo() throws {
        var options = ReportBuilder.Options()
        options.headRows = 5
        options.context = 2
        let r = try report(SampleCaptures.faults().bytes, options)
        XCTAssertEqual(r.events, 57)
        XCTAssertEqual(r.rows.count + r.omittedEvents, 57)
        XCTAssertEqual(r.rows.prefix(5).map(\.index), [1, 2, 3, 4, 5], "the first rows are kept")
        // Every diagnostic row is kept, with 2 rows on each side.
        let kept = Set(r.rows.map(\.index))
        for row in r.rows where row.diagnosticId != nil {
            for i in row.index - 2...row.index where i > 0 {
                XCTAssertTrue(kept.contains(i), "row \(i) before \(row.index)")
            }
        }
        XCTAssertEqual(
            r.window,
            "\(r.rows.count) of 57 events: the first 5, 2 on each side of every diagnostic; \(r.omittedEvents) left out"
        )
        XCTAssertEqual(r.diagnostics.reduce(0) { $0 + $1.count }, 23, "counts stay complete")
    }

    /// The rows kept on each side of a diagnostic count toward the timeline's limit too (they went
    /// past it: 91,700 rows for a capture of 12,000 diagnostics).
    func testTheRowLimitHoldsWhateverTheDiagnostics() throws {
        var options = ReportBuilder.Options()
        options.headRows = 5
        options.context = 2
        options.rowLimit = 12
        let r = try report(SampleCaptures.faults().bytes, options)
        XCTAssertEqual(r.rows.count, 12)
        XCTAssertEqual(r.rows.count + r.omittedEvents, 57)
        XCTAssertEqual(
            r.window,
            "12 of 57 events: the first 5, 2 on each side of every diagnostic, at most 12; \(r.omittedEvents) left out")
    }

    /// A note may be a megabyte (PacketLogger, btmon): a row keeps 1,024 bytes of its text and
    /// counts the rest, whether it was kept at once or held back for a diagnostic.
    func testALongNoteIsCutInItsRow() throws {
        var w = BTSnoopWriter(datalink: 2001)
        // btmon System Note (opcode 13, index 0xffff): the text, NUL-terminated.
        let text = String(repeating: "é", count: 50_000)
        for i in 0..<3 { _ = w.addMonitor(opcode: 13, index: 0xffff, Array(text.utf8) + [0], time: Int64(i)) }
        // Then a diagnostic: an HCI event (monitor opcode 3) whose parameter length says 16, with none.
        _ = w.addMonitor(opcode: 3, index: 0, [0x0e, 0x10], time: 3)
        var options = ReportBuilder.Options()
        options.headRows = 1
        let r = try report(w.bytes, options)
        XCTAssertTrue(r.rows.contains { $0.diagnosticId != nil })
        let long = r.rows.filter { $0.text.contains("éé") }
        XCTAssertEqual(long.count, 3, "the first kept at once, two held back for the diagnostic")
        for row in long {
            XCTAssertLessThanOrEqual(row.text.utf8.count, 1024 + 20, row.text.suffix(40).description)
            XCTAssertTrue(row.text.hasSuffix(" bytes)"), row.text.suffix(40).description)
        }
    }

    func testARangeByRecordOrTime() throws {
        var options = ReportBuilder.Options()
        options.range = 10...12
        let byRecord = try report(SampleCaptures.faults().bytes, options)
        XCTAssertEqual(Set(byRecord.rows.map(\.record)), [10, 11, 12])
        options.range = 0...0.004
        options.rangeIsTime = true
        let byTime = try report(SampleCaptures.faults().bytes, options)
        XCTAssertEqual(Set(byTime.rows.map(\.record)), [1, 2, 3, 4])
    }

    func testTheHTMLNeedsNothingFromTheNetwork() throws {
        let html = ReportHTML.render(try report(SampleCaptures.session().bytes), generator: "test")
        XCTAssertTrue(
            html.contains(
                #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">"#
            ))
        XCTAssertNil(html.range(of: #"(src|href)="(https?:)?//"#, options: .regularExpression))
        XCTAssertTrue(html.contains("<svg viewBox"), "the sequence chart and charts are inline SVG")
    }

    /// Chromium renders the page and runs its self-test, which drives every filter and writes what
    /// stayed visible; the console must stay free of errors.
    func testFiltersWorkInHeadlessChromium() throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let chromium else { throw XCTSkip("Chromium is not installed") }
        let file = NSTemporaryDirectory() + "btlens-report-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try ReportHTML.render(try report(SampleCaptures.faults().bytes), generator: "test").write(
            toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--enable-logging=stderr",
            "--v=0", "--dump-dom", "file://\(file)#selftest",
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let console = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let start = dom.range(of: #"<pre id="selftest" hidden="">"#),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            return XCTFail("no self-test output:\n\(dom.suffix(500))")
        }
        let lines = dom[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "all=57")
        XCTAssertTrue(lines.contains("severity=error 3 [5,21,23]"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("stream=0x0015 4 [11,12,13,14]"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("command=WriteSettings 1 [10]"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("text=checksum 2 [5,5]"), lines.joined(separator: "\n"))
        XCTAssertEqual(lines.last, "reset=57")
        let errors = console.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        XCTAssertEqual(errors, [], "console errors")
    }
}

extension ReportTests {
    func testAdvertisersAreListedAndRedacted() throws {
        var s = LESession()
        let ad: [UInt8] = [0x07, 0x09] + Array("Aurora".utf8)
        s.event(
            0x3e,
            [0x02, 0x01, 0x00, 0x00, 0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa, UInt8(ad.count)] + ad + [
                UInt8(bitPattern: -60)
            ])
        for redact in [false, true] {
            var options = ReportBuilder.Options()
            options.redact = redact
            var reader = try CaptureFormat.open(MemorySource(s.bytes))
            let builder = ReportBuilder(file: "capture", info: reader.info, options: options)
            let analyzer = try Pipeline.run(&reader, onRecord: builder.record, onEvent: builder.event)
            let r = builder.finish(
                connections: analyzer.connectionSummaries, gatt: analyzer.gatt, advertisers: analyzer.advertisers)
            XCTAssertEqual(
                r.advertisers.map { "\($0.address) \($0.name ?? "") \($0.reports) \($0.rssi)" },
                [redact ? "[address 1] [name 1] 1 -60...-60" : "AA:BB:CC:11:22:33 Aurora 1 -60...-60"])
            let html = ReportHTML.render(r, generator: "test")
            XCTAssertTrue(html.contains("<h3>Devices seen advertising</h3>"))
            XCTAssertEqual(html.contains("AA:BB:CC:11:22:33"), !redact)
        }
    }
}

extension ReportTests {
    /// Device names read every way a phone reads them: a Read of the Device Name handle (0x40), a
    /// Read By Type of its UUID (0x41), a long read with Read Blob (0x42); and an advertised name.
    static func namedDevices() -> LESession {
        var s = LESession()
        let ad: [UInt8] = [16, 0x09] + Array("Garden Sensor 7".utf8)
        s.event(
            0x3e,
            [0x02, 0x01, 0x00, 0x00, 0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa, UInt8(ad.count)] + ad + [
                UInt8(bitPattern: -60)
            ])
        for (handle, last) in [(UInt16(0x40), UInt8(0x40)), (0x41, 0x41), (0x42, 0x42)] {
            s.connect(handle: handle, address: [last, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        }
        // Discovery: Device Name (0x2A00) at value handle 0x0003 (Core Vol 3 Part G 3.3.1).
        for handle: UInt16 in [0x40, 0x42] {
            s.att(handle: handle, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(handle: handle, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2a])
        }
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + Array("Kitchen Speaker".utf8))
        // Read By Type Request for 0x2A00; the response's elements are handle + value (length 2 + 16).
        s.att(handle: 0x41, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x00, 0x2a])
        s.att(handle: 0x41, .received, [0x09, 18, 0x03, 0x00] + Array("Office Lamp Mini".utf8))
        // Default ATT_MTU 23: a full Read Response (22 bytes), then Read Blob from offset 22.
        let long = Array("Living Room Soundbar Max 2000".utf8)
        s.att(handle: 0x42, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x42, .received, [0x0b] + Array(long.prefix(22)))
        s.att(handle: 0x42, .sent, [0x0c, 0x03, 0x00, 22, 0x00])
        s.att(handle: 0x42, .received, [0x0d] + Array(long.dropFirst(22)))
        return s
    }

    func testRedactionLeavesNoFolderOrDeviceNameInAnyFormat() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-redact-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("jdoe-private").appendingPathComponent("bt-logs-2024")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let captures = [
            ("names.btsnoop", Self.namedDevices()),
            ("iap2.btsnoop", SampleCaptures.bredrIAP2(accessoryName: "Lucy's Bedside Lamp")),
        ]
        let names = [
            "Garden Sensor 7", "Kitchen Speaker", "Office Lamp Mini", "Living Room Soundbar Max 2000",
            "Lucy's Bedside Lamp",
        ]
        var placeholders = Set<String>()
        for (file, session) in captures {
            let input = folder.appendingPathComponent(file).path
            XCTAssertTrue(FileManager.default.createFile(atPath: input, contents: Data(session.bytes)))
            for format in ["html", "md", "txt", "json"] {
                let output = base.appendingPathComponent("\(file).\(format)").path
                let run = try runCLI(["report", input, "-o", output, "--redact", "--no-dissectors"])
                XCTAssertEqual(run.status, 0, run.stderr)
                let report = try String(contentsOfFile: output, encoding: .utf8)
                for part in [base.lastPathComponent, "jdoe-private", "bt-logs-2024", folder.path] {
                    XCTAssertFalse(report.contains(part), "\(part) in the \(format) report of \(file)")
                }
                XCTAssertTrue(report.contains(file), "the \(format) report names its input \(file)")
                for name in names {
                    let forms = [
                        name, name.replacingOccurrences(of: "'", with: "&#39;"), Hex.spaced(Array(name.utf8)),
                        Hex.string(Array(name.utf8)),
                    ]
                    for form in forms {
                        XCTAssertFalse(report.contains(form), "\(form) in the \(format) report of \(file)")
                    }
                }
                if format == "json", let data = report.data(using: .utf8),
                    let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                {
                    XCTAssertEqual(json["file"] as? String, file)
                    for key in ["connections", "advertisers", "accessories"] {
                        for item in json[key] as? [[String: Any]] ?? [] {
                            if let n = item["name"] as? String { placeholders.insert(n) }
                        }
                    }
                }
            }
        }
        // GAP names by Read, Read By Type and long read; the advertised name; the accessory's name.
        XCTAssertEqual(
            placeholders, ["[name 1]", "[name 2]", "[name 3]", "[name 4]"], "one placeholder per distinct name")
    }
}
