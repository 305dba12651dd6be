import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The live page (`follow --serve`, `view --serve`) in a headless chromium driven by chromedriver:
/// rows of a growing capture come within a second, the filter narrows them as `timeline -Y` does,
/// a click shows the record's layers and bytes, two browsers agree, hostile names stay text, and
/// "save this view" gives the report. btlens is stopped by SIGINT after each test and must exit 0
/// within a second.
final class LivePageBrowserTests: XCTestCase {
    var driver: WebDriver?
    var servers: [ServedCLI] = []
    var sessions: [WebDriver.Session] = []
    var files: [String] = []

    static let peer: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]
    /// docs/serve.png is this test's screenshot: `BTLENS_SERVE_SCREENSHOT=docs/serve.png`.
    static let screenshot = ProcessInfo.processInfo.environment["BTLENS_SERVE_SCREENSHOT"]

    override func tearDown() async throws {
        for s in sessions { await s.delete() }
        sessions = []
        driver?.quit()
        driver = nil
        // Off the main actor: the wait for the exit must not hold the thread that reports it.
        let running = servers
        servers = []
        await Task.detached { for s in running { s.stopAndCheck() } }.value
        for f in files { unlink(f) }
        files = []
    }

    func write(_ bytes: [UInt8], _ name: String = "live") -> String {
        let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString).btsnoop"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        files.append(path)
        return path
    }

    func append(_ bytes: ArraySlice<UInt8>, to path: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: Data(bytes))
        try h.close()
    }

    func serve(_ arguments: [String]) throws -> ServedCLI {
        let s = try ServedCLI(arguments)
        servers.append(s)
        return s
    }

    func browser() async throws -> WebDriver.Session {
        if driver == nil { driver = try await WebDriver() }
        let s = try await driver!.session()
        sessions.append(s)
        return s
    }

    /// `btlens timeline FILE [-Y EXPR]`'s lines.
    func timeline(_ path: String, filter: String? = nil) throws -> [String] {
        let run = try runCLI(
            ["timeline", path, "--color", "never"] + (filter.map { ["-Y", $0] } ?? []),
            cwd: NSTemporaryDirectory(), stdout: nil)
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// Opens the page and waits until it shows `count` events (data-count), or at least one.
    func open(_ b: WebDriver.Session, _ server: ServedCLI, count: Int? = nil) async throws {
        try await b.navigate(server.url)
        let check = count.map { "=== '\($0)'" } ?? "> '0'"
        let ok = try await b.waitFor(
            "const t = document.getElementById('timeline'); return !!t && t.getAttribute('data-count') \(check);")
        let state = try await b.execute("return document.getElementById('state').getAttribute('data-state')")
        XCTAssertNotNil(
            ok, "the page shows the events (count \(count.map(String.init) ?? "> 0")); state \(state ?? "-")")
    }

    func records(_ lines: [String]) -> [String] {
        lines.map { String($0.dropFirst().prefix(while: { $0.isNumber })) }
    }

    // MARK: 1. growing capture

    func testLivePageShowsAppendedRecordsWithinASecond() async throws {
        var s = LESession()
        s.connect(handle: 0x0040, address: Self.peer)
        s.att(handle: 0x0040, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x0040, .received, [0x03, 0x40, 0x00])
        let path = write(s.bytes)
        let server = try serve(["follow", path, "--serve", "127.0.0.1:0", "--color", "never"])
        let b = try await browser()
        try await open(b, server)
        let live = try await b.waitFor("return document.getElementById('state').dataset.state === 'live'")
        XCTAssertNotNil(live, "the page says live")
        var latencies: [Double] = []
        for i in 0..<10 {
            let before = s.bytes.count
            s.frame(
                handle: 0x0040, attHandle: 0x0013, .sent, command: 0x20, sequence: UInt8(i), payload: [UInt8(i), 0x42])
            let record = s.lastRecord
            try append(s.bytes[before...], to: path)
            let written = Date()
            let shown = try await b.waitFor(
                "return !!document.querySelector('#timeline .row:not([hidden])[data-record=\"\(record)\"]')", timeout: 5
            )
            let latency = shown.map { _ in Date().timeIntervalSince(written) }
            XCTAssertNotNil(latency, "row for record \(record) shown within 5 s")
            if let latency {
                XCTAssertLessThan(latency, 1.0, "record \(record): from written to row shown")
                latencies.append(latency)
            }
            try await Task.sleep(nanoseconds: 150_000_000)
        }
        let sorted = latencies.sorted()
        if !sorted.isEmpty {
            let ms = { (x: Double) in String(format: "%.0f ms", x * 1000) }
            print(
                "LivePage latency (record written to row shown, \(sorted.count) records, 50 ms polling): min \(ms(sorted[0])), median \(ms(sorted[sorted.count / 2])), max \(ms(sorted[sorted.count - 1])); all: \(latencies.map(ms).joined(separator: ", "))"
            )
        }
        // The rows are the timeline's lines for the file as it now is.
        let expected = try timeline(path)
        let settled = try await b.waitFor(
            "return document.getElementById('timeline').getAttribute('data-count') === '\(expected.count)'")
        XCTAssertNotNil(settled, "data-count is the timeline's line count \(expected.count)")
        let rows = try await b.rows()
        XCTAssertEqual(rows.map(\.text), Array(expected.suffix(rows.count)), "rows are the timeline's last lines")
        XCTAssertEqual(rows.map(\.record), records(Array(expected.suffix(rows.count))))
    }

    // MARK: 2. filter

    func testLivePageFilterNarrowsRowsAsTimelineDoesAndShowsErrors() async throws {
        let path = write(SampleCaptures.session().bytes, "session")
        let all = try timeline(path)
        let server = try serve(["view", path, "--no-open", "--serve", "127.0.0.1:0"])
        let b = try await browser()
        try await open(b, server, count: all.count)
        for expression in ["a5", "hci", "command == 0x20"] {
            let expected = try timeline(path, filter: expression)
            XCTAssertFalse(expected.isEmpty, expression)
            let input = try await b.find("#filter")
            try await b.clear(input)
            try await b.sendKeys(input, expression + "\u{E007}")
            let narrowed = try await b.waitFor(
                "return document.getElementById('timeline').getAttribute('data-count') === '\(expected.count)'")
            XCTAssertNotNil(narrowed, "\(expression): \(expected.count) events")
            let rows = try await b.rows()
            XCTAssertEqual(rows.map(\.text), expected, "\(expression): the rows are timeline -Y's lines")
            XCTAssertEqual(rows.map(\.record), records(expected), expression)
            let href = try await b.attribute(try await b.find("#save-md"), "href") ?? ""
            XCTAssertTrue(href.contains("filter="), href)
        }
        // A bad expression: the error with a caret, the rows unchanged.
        let before = try await b.rows()
        let input = try await b.find("#filter")
        try await b.clear(input)
        try await b.sendKeys(input, "att &&\u{E007}")
        let shown = try await b.waitFor("return !document.getElementById('filter-error').hidden")
        XCTAssertNotNil(shown, "#filter-error shown")
        let expr = try await b.execute("return document.getElementById('filter-error-expr').textContent") as? String
        let lines = (expr ?? "").components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "att &&", expr ?? "-")
        XCTAssertTrue(
            lines.count >= 2 && lines[1].range(of: #"^ *\^~*$"#, options: .regularExpression) != nil,
            "a caret line under the expression: \(expr ?? "-")")
        let message =
            try await b.execute("return document.getElementById('filter-error-message').textContent") as? String ?? ""
        XCTAssertFalse(message.isEmpty, "a message")
        try await Task.sleep(nanoseconds: 500_000_000)
        let after = try await b.rows()
        XCTAssertEqual(after.map(\.text), before.map(\.text), "rows stay after a refused filter")
        // A good filter again hides the error.
        try await b.clear(input)
        try await b.sendKeys(input, "a5\u{E007}")
        let hidden = try await b.waitFor("return document.getElementById('filter-error').hidden")
        XCTAssertNotNil(hidden, "#filter-error hidden again after a good filter")
    }

    // MARK: 3. details (and the screenshot)

    func testLivePageRowClickShowsLayersAndBytes() async throws {
        let path = write(SampleCaptures.session().bytes, "session")
        let server = try serve(["view", path, "--no-open", "--serve", "127.0.0.1:0"])
        let b = try await browser()
        try await open(b, server, count: try timeline(path).count)
        let input = try await b.find("#filter")
        try await b.sendKeys(input, "att\u{E007}")
        let expected = try timeline(path, filter: "att")
        let narrowed = try await b.waitFor(
            "return document.getElementById('timeline').getAttribute('data-count') === '\(expected.count)'")
        XCTAssertNotNil(narrowed, "att: \(expected.count) events")
        // A Read Response of a string: one ACL record.
        let rows = try await b.rows()
        let row = try XCTUnwrap(rows.first(where: { $0.text.contains("Read Response") && $0.text.contains("text=") }))
        let element = try await b.find("#timeline .row:not([hidden])[data-record=\"\(row.record)\"]")
        try await b.click(element)
        let got = try await b.waitFor(
            "const t = document.getElementById('details-lines').textContent; return t.includes('ACL') && t.includes('L2CAP');"
        )
        let lines = try await b.execute("return document.getElementById('details-lines').textContent") as? String ?? ""
        XCTAssertNotNil(got, "#details-lines shows the ACL and L2CAP layers of #\(row.record):\n\(lines)")
        let hex = try await b.execute("return document.getElementById('details-hex').textContent") as? String ?? ""
        // ACL handle 0x0040 with a first-fragment flag: 40 20, little-endian.
        XCTAssertTrue(
            hex.replacingOccurrences(of: " ", with: "").lowercased().contains("4020"),
            "#details-hex holds the record's bytes:\n\(hex)")
        let selected = try await b.execute(
            "const r = document.querySelector('#timeline .row.selected'); return r ? r.getAttribute('data-record') : null"
        )
        XCTAssertEqual(selected as? String, row.record, "the clicked row is selected")
        let png = try await b.screenshot()
        XCTAssertTrue(png.starts(with: [0x89, 0x50, 0x4e, 0x47]), "a PNG")
        if let path = Self.screenshot { try png.write(to: URL(fileURLWithPath: path)) }
    }

    // MARK: 4. two browsers

    func testLivePageTwoBrowsersSeeTheSameRows() async throws {
        var s = LESession()
        s.connect(handle: 0x0040, address: Self.peer)
        let path = write(s.bytes)
        let server = try serve(["follow", path, "--serve", "127.0.0.1:0", "--color", "never"])
        let one = try await browser()
        let two = try await browser()
        try await open(one, server)
        try await open(two, server)
        for i in 0..<4 {
            let before = s.bytes.count
            s.frame(handle: 0x0040, attHandle: 0x0013, .sent, command: 0x21, sequence: UInt8(i), payload: [UInt8(i)])
            try append(s.bytes[before...], to: path)
        }
        let record = s.lastRecord
        for b in [one, two] {
            let ok = try await b.waitFor(
                "return !!document.querySelector('#timeline .row:not([hidden])[data-record=\"\(record)\"]')", timeout: 5
            )
            XCTAssertNotNil(ok, "both show record \(record)")
        }
        let expected = try timeline(path)
        for b in [one, two] {
            let ok = try await b.waitFor(
                "return document.getElementById('timeline').getAttribute('data-count') === '\(expected.count)'")
            XCTAssertNotNil(ok)
        }
        let a = try await one.rows()
        let c = try await two.rows()
        XCTAssertFalse(a.isEmpty)
        XCTAssertEqual(a.map(\.text), c.map(\.text), "the same rows in both browsers")
        XCTAssertEqual(a.map(\.record), c.map(\.record))
    }

    // MARK: 5. hostile strings

    func testLivePageShowsHostileNamesAsText() async throws {
        let hostile = #"<img src=x onerror="window.__pwned=1">"#
        let path = write(SampleCaptures.bredrIAP2(accessoryName: hostile).bytes, "hostile")
        let all = try timeline(path)
        let line = try XCTUnwrap(all.first(where: { $0.contains("<img") }), "timeline prints the name")
        let server = try serve(["view", path, "--no-open", "--serve", "127.0.0.1:0"])
        let b = try await browser()
        try await open(b, server, count: all.count)
        let record = String(line.dropFirst().prefix(while: { $0.isNumber }))
        // Bring the row into view: the list is virtual.
        let input = try await b.find("#filter")
        try await b.sendKeys(input, "frame.number == \(record)\u{E007}")
        let found = try await b.waitFor(
            "return Array.from(document.querySelectorAll('#timeline .row:not([hidden])')).some(r => r.textContent.includes('<img'))"
        )
        XCTAssertNotNil(found, "a row holds the name as text")
        let rows = try await b.rows()
        let row = rows.first(where: { $0.text.contains("<img") })
        XCTAssertEqual(row?.text, line, "the row is the timeline's line")
        XCTAssertTrue(row?.text.contains(hostile) == true, "the literal name: \(row?.text ?? "-")")
        if let r = row {
            try await b.click(try await b.find("#timeline .row:not([hidden])[data-record=\"\(r.record)\"]"))
            _ = try await b.waitFor("return document.getElementById('details-lines').textContent.length > 0")
        }
        // A hostile filter expression too, shown in the error.
        try await b.clear(input)
        try await b.sendKeys(input, "<img src=x onerror=window.__pwned=2> &&\u{E007}")
        _ = try await b.waitFor("return !document.getElementById('filter-error').hidden")
        try await Task.sleep(nanoseconds: 300_000_000)
        let imgs = try await b.execute("return document.querySelectorAll('img').length") as? Int
        XCTAssertEqual(imgs, 0, "no <img> made from the capture or the filter")
        let pwned = try await b.execute("return typeof window.__pwned") as? String
        XCTAssertEqual(pwned, "undefined", "no script ran")
    }

    // MARK: 6. view and save

    func testLivePageViewShowsAllRowsAndSavesMarkdown() async throws {
        let path = write(SampleCaptures.session().bytes, "session")
        let all = try timeline(path)
        let server = try serve(["view", path, "--no-open", "--serve", "127.0.0.1:0"])
        let b = try await browser()
        try await open(b, server, count: all.count)
        let tail = try await b.rows()
        XCTAssertEqual(tail.map(\.text), Array(all.suffix(tail.count)), "the last rows")
        _ = try await b.execute("document.getElementById('timeline').scrollTop = 0;")
        let top = try await b.waitFor(
            "const r = document.querySelector('#timeline .row:not([hidden])'); return !!r && r.getAttribute('data-record') === '1';"
        )
        XCTAssertNotNil(top, "scrolled to the top: record 1 first")
        let head = try await b.rows()
        XCTAssertEqual(head.map(\.text), Array(all.prefix(head.count)), "the first rows")
        let state = try await b.execute("return document.getElementById('state').dataset.state") as? String
        XCTAssertTrue(["ended", "live"].contains(state ?? ""), "state \(state ?? "-")")
        let href = try await b.execute("return document.getElementById('save-md').href") as? String ?? ""
        XCTAssertTrue(href.hasPrefix(server.url.prefix(while: { $0 != "?" })), href)
        let (data, response) = try await HTTP.send(URLRequest(url: try XCTUnwrap(URL(string: href))))
        XCTAssertEqual(response.status, 200)
        let md = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(md.hasPrefix("# btlens report"), String(md.prefix(200)))
        let disposition = response.header("Content-Disposition") ?? ""
        XCTAssertTrue(disposition.contains("attachment"), "a download: \(disposition)")
        let html = try await b.execute("return document.getElementById('save-html').href") as? String ?? ""
        let (hd, hr) = try await HTTP.send(URLRequest(url: try XCTUnwrap(URL(string: html))))
        XCTAssertEqual(hr.status, 200)
        XCTAssertTrue(String(decoding: hd, as: UTF8.self).lowercased().contains("<html"))
    }
}
