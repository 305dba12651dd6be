import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens report --app-log`: the sample logcat beside its capture (Captures/ble_app_log.*) as rows
/// of the timeline, a lane of the sequence chart, an alignment in the summary, and the `app.*`
/// diagnostics in the list; the capture's own counts as they are without the log.
final class ReportAppLogTests: XCTestCase {
    static let capture = AppLogTests.captures + "/ble_app_log.btsnoop"
    static let log = AppLogTests.captures + "/ble_app_log.logcat.txt"

    /// The report in `format`, as written.
    private func report(_ format: String, _ extra: [String] = [], log: Bool = true) throws -> String {
        let out = NSTemporaryDirectory() + "btlens-report-log-\(UUID().uuidString).\(format)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try runCLI(["report", Self.capture, "-o", out] + (log ? ["--app-log", Self.log] : []) + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    private func json(_ extra: [String] = [], log: Bool = true) throws -> [String: Any] {
        let text = try report("json", extra, log: log)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The log's 13 lines in time order with the events, each with its source, line, level, tag,
    /// message and matched record; the alignment; the lane; the diagnostics at their records.
    func testTheJSONReportHoldsTheLogsRowsLaneAndAlignment() throws {
        let r = try json()
        let logs = try XCTUnwrap(r["app_logs"] as? [[String: Any]])
        XCTAssertEqual(logs.count, 1)
        XCTAssertEqual(logs.first?["source"] as? String, Self.log)
        XCTAssertEqual(logs.first?["offset_ms"] as? Double, -3_599_997)
        XCTAssertEqual(logs.first?["matched"] as? Int, 10)
        XCTAssertEqual(logs.first?["method"] as? String, "content")
        XCTAssertEqual(logs.first?["lines"] as? Int, 13)
        let timeline = try XCTUnwrap(r["timeline"] as? [String: Any])
        XCTAssertEqual(timeline["events"] as? Int, 48)
        XCTAssertEqual(timeline["log_lines"] as? Int, 13)
        XCTAssertEqual(timeline["window"] as? String, "all 48 events (13 of them app log lines)")
        let rows = try XCTUnwrap(timeline["rows"] as? [[String: Any]])
        // Each row: where it is, and for a log line its line, level, tag, message and match.
        let described = rows.map { row -> String in
            let at = "\(row["index"] ?? "") #\(row["record"] ?? "") \(row["offset"] ?? "") \(row["arrow"] ?? "")"
            guard let l = row["log"] as? [String: Any] else { return "\(at) \(row["layer"] ?? "")" }
            XCTAssertEqual(l["source"] as? String, Self.log)
            XCTAssertEqual(row["layer"] as? String, "LOG")
            let matched = (l["matches_record"] as? Int).map { " = #\($0)" } ?? ""
            return "\(at) L\(l["line"] ?? "") \(l["level"] ?? "") [\(l["tag"] ?? "")] \(l["message"] ?? "")\(matched)"
        }
        XCTAssertEqual(
            zip(rows, described).filter { $0.0["log"] != nil }.map(\.1),
            [
                "8 #5 0.007750 ~ L2 I [AuroraBLE] connected to AA:BB:CC:11:22:33, discovering services",
                "9 #5 0.025750 ~ L3 D [AuroraBLE] TX write fff3: a5 01 20 01 00 01 01 c9 = #6",
                "14 #7 0.033750 ~ L4 D [AuroraBLE] RX notify fff4: a501a04100010088 = #7",
                "15 #7 0.048750 ~ L5 D [AuroraBLE] TX write fff3: a5 01 21 02 00 03 00 10 20 fc = #8",
                "20 #9 0.056750 ~ L6 D [AuroraBLE] RX notify fff4: a501a14200020030bb = #9",
                "21 #9 0.070750 ~ L7 D [AuroraBLE] TX write fff3: a5 01 20 03 00 01 02 cc = #10",
                "29 #12 0.078750 ~ L8 D [AuroraBLE] RX notify fff4: a501a0430001008a = #11",
                "30 #12 0.094750 ~ L9 D [AuroraBLE] TX write fff3: a5 01 22 04 00 01 02 cf",
                "32 #12 0.114750 ~ L10 D [AuroraBLE] TX write fff3: a5 01 20 04 00 01 03 ce = #13",
                "37 #14 0.122750 ~ L11 D [AuroraBLE] RX notify fff4: a501a0450001008c = #14",
                "38 #14 0.136750 ~ L12 D [AuroraBLE] TX write fff3: a5 01 30 05 00 03 10 11 12 11 = #15",
                "47 #19 0.145750 ~ L13 D [AuroraBLE] RX notify fff4: a501b0460001009d = #16",
                "48 #19 0.151750 ~ L14 I [AuroraBLE] session done",
            ])
        // In time order with the events: a TX line just before the write it logged, an RX line after.
        XCTAssertEqual(
            Array(described[8...11]),
            [
                "9 #5 0.025750 ~ L3 D [AuroraBLE] TX write fff3: a5 01 20 01 00 01 01 c9 = #6", "10 #6 0.026250 < ATT",
                "11 #6 0.026250 < A5", "12 #7 0.027500 > ATT",
            ])
        XCTAssertEqual(
            rows.filter { $0["diagnostic"] is String }.map {
                "\($0["index"] ?? "") \($0["diagnostic"] ?? "") #\($0["record"] ?? "")"
            },
            ["28 app.rx.not_logged #12", "31 app.tx.not_on_air #12"])
        let diagnostics = try XCTUnwrap(r["diagnostics"] as? [[String: Any]])
        XCTAssertEqual(
            diagnostics.map {
                "\($0["id"] ?? "") \($0["severity"] ?? "") \($0["count"] ?? "") \($0["records"] as? [Int] ?? [])"
            },
            ["app.tx.not_on_air warning 1 [12]", "app.rx.not_logged note 1 [12]"])
        // The lane: every line with bytes on the air, and the one whose bytes never went out, marked.
        let sequence = try XCTUnwrap(r["sequence"] as? [[String: Any]])
        let lane = sequence.filter { $0["lane"] as? String == "app log" }.map {
            "L\($0["line"] ?? "") row \($0["row"] ?? "") = \($0["matches_record"] as? Int ?? 0) \($0["diagnostics"] as? [String] ?? [])"
        }
        XCTAssertEqual(
            lane,
            [
                "L3 row 9 = 6 []", "L4 row 14 = 7 []", "L5 row 15 = 8 []", "L6 row 20 = 9 []", "L7 row 21 = 10 []",
                "L8 row 29 = 11 []", "L9 row 30 = 0 [\"app.tx.not_on_air\"]", "L10 row 32 = 13 []",
                "L11 row 37 = 14 []", "L12 row 38 = 15 []", "L13 row 47 = 16 []",
            ])
        // The value never logged marks its arrow.
        let battery = sequence.first { $0["lane"] as? String == "air" && $0["record"] as? Int == 12 }
        XCTAssertEqual(battery?["diagnostics"] as? [String], ["app.rx.not_logged"])
        XCTAssertEqual(sequence.filter { $0["lane"] as? String == "air" }.count, 11)
    }

    /// Records go straight to the builder while the merger holds the events: the counts, streams,
    /// commands and connections are the ones the report has without the log.
    func testTheCapturesCountsAreTheSameWithTheLog() throws {
        let with = try json()
        let without = try json(log: false)
        for key in [
            "records", "records_by_kind", "first_time", "last_time", "connections", "streams", "commands", "gatt",
        ] {
            XCTAssertEqual(
                try JSONSerialization.data(withJSONObject: ["v": with[key] ?? NSNull()], options: .sortedKeys),
                try JSONSerialization.data(withJSONObject: ["v": without[key] ?? NSNull()], options: .sortedKeys), key)
        }
        let rows = { (r: [String: Any]) in
            ((r["timeline"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []).filter {
                $0["arrow"] as? String != "~" && !($0["diagnostic"] as? String ?? "").hasPrefix("app.")
            }.map { "#\($0["record"] ?? "") \($0["offset"] ?? "") \($0["text"] ?? "")" }
        }
        XCTAssertEqual(rows(with), rows(without))
        XCTAssertEqual((without["app_logs"] as? [Any])?.count, 0)
    }

    /// The text report: the alignment in the summary, the diagnostics, and the rows around them with
    /// the log's lines marked by their line numbers, as on the text timeline.
    func testTheTextReportShowsTheAlignmentDiagnosticsAndLines() throws {
        let txt = try report("txt")
        XCTAssertTrue(
            txt.contains(
                "  App log \(Self.log): offset -3599997.000 ms (content, 10 lines matched), 13 lines in the timeline\n"),
            txt)
        XCTAssertTrue(txt.contains("  warning  app.tx.not_on_air                1      #12\n"), txt)
        XCTAssertTrue(txt.contains("  note     app.rx.not_logged                1      #12\n"), txt)
        // The value never logged right after its event; the line whose bytes never went out, after it.
        let excerpt = """

            #11      0.072500 > 0x0040 A5    0x0015 (fff4) SetEQPresetResponse (0xa0) seq 67 status=ok ← #10 in 1.25 ms
            #12      0.073750 > 0x0040 ATT   Handle Value Notification 0x0015 (fff4) value a5 01 05 44 00 03 02 5a 64 b2
            #12      0.073750 > 0x0040 A5    0x0015 (fff4) BatteryStatus (0x05) seq 68 state=full left=90% right=100%
            #12      0.073750 >      - !NOTE app.rx.not_logged: #12: 10 bytes received on 0x0040 ATT 0x0015, which the app logs, that no log line shows within 2 s (detected at #19)
            L8       0.078750 ~      - LOG   [AuroraBLE] D RX notify fff4: a501a0430001008a = #11
            L9       0.094750 ~      - LOG   [AuroraBLE] D TX write fff3: a5 01 22 04 00 01 02 cf
            #12      0.094750 <      - !WARN app.tx.not_on_air: \(Self.log):9 logs 8 bytes sent (a5012204000102cf) that no packet carried within 2 s


            Timeline: 7 of 48 events (13 of them app log lines): up to 3 on each side of 2 diagnostics; 41 left out (btlens timeline shows them).

            """
        XCTAssertTrue(txt.hasSuffix(excerpt), txt)
        // Markdown: the same lines, fenced.
        let md = try report("md")
        XCTAssertTrue(md.contains(excerpt.split(separator: "\n")[0..<7].joined(separator: "\n")), md)
    }
    /// `--redact` names the log by its file name, and its lines' addresses are placeholders too.
    func testRedactionCoversTheLog() throws {
        for format in ["json", "txt", "html", "md"] {
            let text = try report(format, ["--redact"])
            XCTAssertFalse(text.contains(AppLogTests.captures), format)
            XCTAssertFalse(text.uppercased().contains("AA:BB:CC:11:22:33"), format)
            XCTAssertTrue(text.contains("ble_app_log.logcat.txt"), format)
        }
    }

    /// One log belongs to one capture: a folder's reports refuse it.
    func testAFolderRefusesAnAppLog() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: Self.capture, toPath: folder.appendingPathComponent("a.btsnoop").path)
        let run = try runCLI([
            "report", folder.path, "-o", folder.appendingPathComponent("out").path, "--app-log", Self.log,
        ])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("--app-log belongs to one capture"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
    }

    /// The head of the timeline is the capture's first events with the log's lines among them: a log
    /// that writes ten lines per event does not push the events out.
    func testAChattyLogDoesNotEvictTheCapturesEventsFromTheHead() throws {
        let info = try CaptureFormat.open(MemorySource(SampleCaptures.session().bytes)).info
        var options = ReportBuilder.Options()
        options.headRows = 5
        let builder = ReportBuilder(file: "x", info: info, options: options)
        var line = 0
        for record in 1...20 {
            let t = Timestamp(microseconds: Int64(record) * 1000)
            builder.event(
                Event(
                    record: record, timestamp: t, direction: nil, connection: nil, isTop: true,
                    body: .note(category: "n", text: "\(record)")))
            for _ in 0..<10 {
                line += 1
                let entry = AppLogEntry(
                    source: "a.log", line: line, level: "D", tag: nil, message: "m", matchesRecord: nil)
                builder.event(
                    Event(record: record, timestamp: t, direction: nil, connection: nil, isTop: true, body: .log(entry))
                )
            }
        }
        let r = builder.finish(connections: [], gatt: GATTStore())
        XCTAssertEqual(
            r.rows.map { $0.log.map { "L\($0.line)" } ?? "#\($0.record)" },
            ["#1", "L1", "L2", "L3", "L4", "L5", "#2", "#3", "#4", "#5"])
        XCTAssertEqual(r.events, 220)
        XCTAssertEqual(r.logLines, 200)
        XCTAssertEqual(
            r.window,
            "10 of 220 events (200 of them app log lines): the first 5 and the 5 log lines among them, 20 on each side of every diagnostic; 210 left out"
        )
    }

    /// A log's lines before the capture's first event come before its alignment: they count, and
    /// they do not move the origin of the seconds.
    func testLinesBeforeTheAlignmentAreCountedAndAtNegativeTimes() throws {
        var reader = try CaptureFormat.open(MemorySource(SampleCaptures.session().bytes))
        let builder = ReportBuilder(file: "x", info: reader.info)
        // The first record, at 2 s: the merger passes nothing on before it.
        guard case .record(var first)? = try reader.next() else { return XCTFail("no record") }
        first.timestamp = Timestamp(microseconds: 2_000_000)
        builder.record(first)
        let entry = AppLogEntry(source: "a.log", line: 1, level: nil, tag: nil, message: "early", matchesRecord: nil)
        builder.event(
            Event(
                record: 0, timestamp: Timestamp(microseconds: 500_000), direction: nil, connection: nil, isTop: true,
                body: .log(entry)))
        let t = Timestamp(microseconds: 2_000_000)
        builder.event(
            Event(
                record: 1, timestamp: t, direction: nil, connection: nil, isTop: true,
                body: .note(category: "n", text: "first")))
        let alignment = AppLogAlignment(source: "a.log", offsetMicroseconds: -1500, matched: 2, method: .content)
        builder.event(
            Event(record: 1, timestamp: t, direction: nil, connection: nil, isTop: true, body: .logAlignment(alignment))
        )
        let r = builder.finish(connections: [], gatt: GATTStore())
        XCTAssertEqual(
            r.appLogs.map { "\($0.source) \($0.offsetMicroseconds) \($0.matched) \($0.method) \($0.lines)" },
            [
                "a.log -1500 2 content 1"
            ])
        XCTAssertEqual(r.rows.map(\.offset), ["-1.500000", "0.000000", "0.000000"])
    }

    /// Chromium renders the page: the log's rows are a layer its filter selects, and the chart has the lane.
    func testTheLogsRowsAndLaneInHeadlessChromium() throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let chromium else { throw XCTSkip("Chromium is not installed") }
        let file = NSTemporaryDirectory() + "btlens-report-log-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try report("html").write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--dump-dom",
            "file://\(file)#selftest",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let start = dom.range(of: #"<pre id="selftest" hidden="">"#),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            return XCTFail("no self-test output:\n\(dom.suffix(500))")
        }
        let lines = dom[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "all=48")
        // The 13 lines and the alignment, each at the record before it.
        XCTAssertTrue(
            lines.contains("layer=LOG 14 [1,5,5,7,7,9,9,12,12,12,14,14,19,19]"), lines.joined(separator: "\n"))
        XCTAssertTrue(dom.contains(">App log</text>"), "the lane")
        // A matched line links to the row of its record; the diagnostics link to theirs.
        XCTAssertTrue(dom.contains(##"<a href="#r10">#6</a>"##))
        XCTAssertTrue(dom.contains(##"<a href="#r28">#12</a>"##))
        XCTAssertTrue(dom.contains(##"<a href="#r31">#12</a>"##))
    }
}
