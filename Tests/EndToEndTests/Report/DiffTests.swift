import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens diff` on pairs of captures built to differ in known ways, run as a user runs it.
final class DiffTests: XCTestCase {
    static let root = packageRoot
    static let shipped = root.appendingPathComponent("Dissectors").path

    /// One exchange of the Aurora headphones (Dissectors/aurora-headphones.yaml): a command, then
    /// `wait` records of nothing to do with it (1.25 ms each), then its response (command | 0x80).
    struct Exchange {
        var command: UInt8
        var payload: [UInt8] = [0x01]
        var wait = 1
        var answered = true
        var corrupt = false
        var response: [UInt8] = [0x00]
    }

    /// A connection to the Aurora headphones: MTU exchange, discovery of 0xFFF3/0xFFF4, then `exchanges`.
    static func capture(mtu: Int = 247, events: Bool = true, _ exchanges: [Exchange]) -> [UInt8] {
        var s = LESession()
        let h: UInt16 = 0x40
        s.connect(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        if mtu != 23 {
            s.att(handle: h, .sent, [0x02, UInt8(mtu & 0xff), UInt8(mtu >> 8)])
            s.att(handle: h, .received, [0x03, UInt8(mtu & 0xff), UInt8(mtu >> 8)])
        }
        // Primary service 0xFFF0 (0x000D–0x0016), then its characteristics: 0xFFF3 (write without
        // response) and, unless left out, 0xFFF4 (notify).
        s.att(handle: h, .sent, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(handle: h, .received, [0x11, 0x06, 0x0d, 0x00, 0x16, 0x00, 0xf0, 0xff])
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07, 0x12, 0x00, 0x04, 0x13, 0x00, 0xf3, 0xff]
                + (events ? [0x14, 0x00, 0x10, 0x15, 0x00, 0xf4, 0xff] : []))
        for (i, x) in exchanges.enumerated() {
            s.frame(
                handle: h, attHandle: 0x13, .sent, command: x.command, sequence: UInt8(i), payload: x.payload,
                corruptChecksum: x.corrupt)
            // Number Of Completed Packets: traffic that is not the exchange's.
            for _ in 0..<x.wait { _ = s.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00]) }
            if x.answered {
                s.frame(
                    handle: h, attHandle: 0x15, .received, command: x.command | 0x80, sequence: UInt8(i),
                    payload: x.response)
            }
        }
        s.disconnect(handle: h)
        return s.bytes
    }

    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// The JSON diff of two captures, and the exit status with --fail-on-regression.
    private func diff(_ before: String, _ after: String) throws -> (json: [String: Any], status: Int32) {
        let run = try runCLI([
            "diff", before, after, "--format", "json", "--dissectors", Self.shipped, "--fail-on-regression",
        ])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return (json, run.status)
    }

    private func list(_ json: [String: Any], _ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }

    static let base = (0..<6).map { _ in Exchange(command: 0x20) } + [Exchange(command: 0x22)]

    func testACaptureComparedWithItselfShowsNoDifference() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Captures").path
        )
        .filter { $0.hasSuffix(".btsnoop") }.sorted()
        XCTAssertGreaterThan(files.count, 5)
        for name in files + ["base"] {
            let path =
                name == "base"
                ? try write("base.btsnoop", Self.capture(Self.base))
                : Self.root.appendingPathComponent("Captures/\(name)").path
            let (json, status) = try diff(path, path)
            XCTAssertEqual(status, 0, name)
            for key in ["commands", "diagnostics", "connections", "gatt", "identity", "regressions"] {
                XCTAssertEqual((json[key] as? [Any])?.count, 0, "\(name): \(key)")
            }
            XCTAssertTrue(json["sequence"] is NSNull, name)
            let text = try runCLI(["diff", path, path, "--dissectors", Self.shipped]).stdout
            XCTAssertTrue(text.hasSuffix("no differences\n"), name)
        }
    }

    func testACommandAddedIsNewAndMovesTheSequence() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        var exchanges = Self.base
        // GetBattery, answered with the left and right levels.
        exchanges.insert(Exchange(command: 0x01, payload: [], response: [90, 80]), at: 3)
        let after = try write("after.btsnoop", Self.capture(exchanges))
        let (json, status) = try diff(before, after)
        let commands = list(json, "commands")
        let added = try XCTUnwrap(commands.first { $0["command"] as? Int == 0x01 })
        XCTAssertEqual(added["name"] as? String, "GetBattery")
        XCTAssertTrue(added["before"] is NSNull)
        XCTAssertEqual((added["after"] as? [String: Any])?["sent"] as? Int, 1)
        XCTAssertNotNil(commands.first { $0["command"] as? Int == 0x81 })
        // Steps 0…5 are the first three exchanges (command, response); the seventh differs.
        let sequence = try XCTUnwrap(json["sequence"] as? [String: Any])
        XCTAssertEqual(sequence["index"] as? Int, 6)
        XCTAssertEqual((sequence["after"] as? [[String: Any]])?[3]["name"] as? String, "GetBattery")
        // Nothing got worse.
        XCTAssertEqual(status, 0)
    }

    func testALatencyDoubledIsCalledOutAndIsARegression() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        let after = try write(
            "after.btsnoop",
            Self.capture(
                Self.base.map {
                    var x = $0
                    x.wait = 3
                    return x
                }))
        let (json, status) = try diff(before, after)
        let row = try XCTUnwrap(list(json, "commands").first { $0["command"] as? Int == 0x20 })
        let change = try XCTUnwrap(row["latency_change"] as? [String: Any])
        // 1 filler record: 2.5 ms from request to response; 3 fillers: 5 ms.
        XCTAssertEqual(change["median_ms"] as? Double ?? 0, 2.5, accuracy: 0.05)
        XCTAssertNotNil(change["test"] as? String)
        let latency = { (side: String) in
            ((row[side] as? [String: Any])?["latency_ms"] as? [String: Any])?["median"] as? Double
        }
        XCTAssertEqual(latency("before") ?? 0, 2.5, accuracy: 0.05)
        XCTAssertEqual(latency("after") ?? 0, 5, accuracy: 0.05)
        XCTAssertEqual(status, 3)
        XCTAssertTrue(
            (json["regressions"] as? [String])?.contains { $0.contains("SetEQPreset (0x20) latency median rose") }
                ?? false)
        // One exchange slower among six is within the spread of neither side: not called out.
        var one = Self.base
        one[2].wait = 3
        let (mixed, mixedStatus) = try diff(before, try write("one.btsnoop", Self.capture(one)))
        XCTAssertEqual(list(mixed, "commands").count, 0)
        XCTAssertEqual(mixedStatus, 0)
    }

    func testANewDiagnosticAndAnUnansweredRequestAreRegressions() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        var exchanges = Self.base
        exchanges[4].corrupt = true
        exchanges[5].answered = false
        let after = try write("after.btsnoop", Self.capture(exchanges))
        let (json, status) = try diff(before, after)
        let bad = try XCTUnwrap(list(json, "diagnostics").first { $0["id"] as? String == "a5.checksum.bad" })
        XCTAssertEqual(bad["before"] as? Int, 0)
        XCTAssertEqual(bad["after"] as? Int, 1)
        XCTAssertTrue(bad["first_record_before"] is NSNull)
        XCTAssertNotNil(bad["first_record_after"] as? Int)
        XCTAssertEqual(status, 3)
        let causes = json["regressions"] as? [String] ?? []
        XCTAssertTrue(causes.contains { $0.hasPrefix("new error a5.checksum.bad") }, "\(causes)")
        XCTAssertTrue(causes.contains { $0.hasPrefix("unanswered requests: 0 → 1") }, "\(causes)")
    }

    func testAnMTUChangedIsAConnectionChange() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        let after = try write("after.btsnoop", Self.capture(mtu: 185, Self.base))
        let (json, status) = try diff(before, after)
        let changes = list(json, "connections")
        XCTAssertEqual(changes.count, 1, "\(changes)")
        XCTAssertEqual(changes.first?["peer"] as? String, "AA:BB:CC:11:22:33")
        XCTAssertEqual(changes.first?["name"] as? String, "ATT MTU")
        XCTAssertEqual(changes.first?["before"] as? String, "247")
        XCTAssertEqual(changes.first?["after"] as? String, "185")
        XCTAssertEqual(status, 0)
    }

    /// The event characteristic gone from discovery: the database differs there, and nowhere else
    /// (the frames on its handle are still the vendor's, found on the vendor's device).
    func testACharacteristicRemovedIsAGATTChange() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        let after = try write("after.btsnoop", Self.capture(events: false, Self.base))
        let (json, status) = try diff(before, after)
        let changes = list(json, "gatt")
        XCTAssertEqual(changes.count, 1, "\(changes)")
        XCTAssertEqual(changes.first?["server"] as? String, "AA:BB:CC:11:22:33")
        XCTAssertEqual(changes.first?["name"] as? String, "characteristic fff0/fff4")
        XCTAssertEqual(changes.first?["before"] as? String, "handle 0x0015, properties 0x10")
        XCTAssertTrue(changes.first?["after"] is NSNull)
        XCTAssertEqual(list(json, "commands").count, 0)
        XCTAssertEqual(status, 0)
    }

    func testAReorderedCommandIsWhereTheSequenceDiffers() throws {
        var exchanges = Self.base
        exchanges.swapAt(5, 6)
        let (json, _) = try diff(
            try write("before.btsnoop", Self.capture(Self.base)), try write("after.btsnoop", Self.capture(exchanges)))
        // The counts are the same: only the order changed.
        XCTAssertEqual(list(json, "commands").count, 0)
        let sequence = try XCTUnwrap(json["sequence"] as? [String: Any])
        XCTAssertEqual(sequence["index"] as? Int, 10)
        // The excerpt starts three steps before the difference.
        XCTAssertEqual((sequence["before"] as? [[String: Any]])?[3]["name"] as? String, "SetEQPreset")
        XCTAssertEqual((sequence["after"] as? [[String: Any]])?[3]["name"] as? String, "SetAncMode")
    }

    /// The bundled pair (Captures/README.md): every kind of difference the script put in, as
    /// docs/diff.md shows it.
    func testTheBundledFirmwareUpdate() throws {
        let run = try runCLI(
            [
                "diff", "Captures/ble_firmware_before.btsnoop", "Captures/ble_firmware_after.btsnoop",
                "--fail-on-regression",
            ], cwd: Self.root.path)
        XCTAssertEqual(run.status, 3)
        var lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        // Where the definitions were found depends on the clone's folder.
        XCTAssertTrue(lines[2].hasPrefix("dissectors: "), String(lines[2]))
        XCTAssertTrue(lines[2].hasSuffix("Dissectors): aurora-headphones.yaml, lawaken-lamp.yaml"), String(lines[2]))
        lines.remove(at: 2)
        XCTAssertEqual(
            lines.joined(separator: "\n"),
            """
            before: Captures/ble_firmware_before.btsnoop (43 records, 0.052500 s)
            after:  Captures/ble_firmware_after.btsnoop (57 records, 0.070000 s)

            Commands
              aurora-headphones SetEQPreset (0x20): sent 6, answered 6, latency median 2.5 → 5 ms, p95 2.5 → 5 ms, rose by more than the spread (0 ms)
              aurora-headphones WriteSettings (0x21): sent 1, answered 1 → 0, unanswered 0 → 1
              aurora-headphones WriteSettingsResponse (0xa1): received 1 → 0 [gone]

            Diagnostics
              a5.checksum.bad (error): 0 → 1, first at — → #26 [new]
              a5.request.unanswered (warning): 0 → 1, first at — → #57 [new]

            Connections
              AA:BB:CC:11:22:33: ATT MTU 247 → 185

            GATT database
              AA:BB:CC:11:22:33: characteristic fff0/fff1: handle 0x000f, properties 0x0a → (none)

            Identity
              device information firmware: 1.4.2 → 1.5.0

            Command sequence: the first difference is at step 16
                #35 < aurora-headphones SetAncMode               #46 < aurora-headphones SetAncMode
                #37 > aurora-headphones SetAncModeResponse       #50 > aurora-headphones SetAncModeResponse
                #38 < aurora-headphones WriteSettings            #51 < aurora-headphones WriteSettings
              * #40 > aurora-headphones WriteSettingsResponse

            Regressions
              new error a5.checksum.bad: 1 (first at #26)
              new warning a5.request.unanswered: 1 (first at #57)
              unanswered requests: 0 → 1
              aurora-headphones SetEQPreset (0x20) latency median rose by 2.5 ms (spread 0 ms)

            """)
        XCTAssertTrue(run.stderr.contains("--fail-on-regression: new error a5.checksum.bad"), run.stderr)
    }

    /// Without definitions the frames are still compared, by framing and command number, and the
    /// output says that no definitions were loaded.
    func testWithoutDefinitionsCommandsAreComparedByNumber() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        var exchanges = Self.base
        exchanges.append(Exchange(command: 0x30))
        let after = try write("after.btsnoop", Self.capture(exchanges))
        let run = try runCLI(["diff", before, after, "--no-dissectors"])
        XCTAssertTrue(
            run.stdout.contains("dissectors: none (--no-dissectors): built-in dissectors only; no definitions:"),
            run.stdout)
        XCTAssertTrue(run.stdout.contains("  a5 0x30: sent 0 → 1 [new]"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  a5 0xb0: received 0 → 1 [new]"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Command sequence: the first difference is at step 15"), run.stdout)
    }

    /// Strings from a capture (an advertised name here) are escaped in text and Markdown; `-o`
    /// picks the format from the file's extension; a peer connected twice says so.
    func testEscapingFormatsAndReconnections() throws {
        var s = LESession()
        let name = Array("<b>A</b>|*_\u{1b}[31mred @admin http://e.vil".utf8)
        _ = s.event(
            0x3e,
            [
                0x02, 0x01, 0x00, 0x00, 0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa, UInt8(name.count + 2),
                UInt8(name.count + 1), 0x09,
            ] + name + [0xc0])
        for _ in 0..<2 {
            s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
            s.disconnect(handle: 0x40)
        }
        let after = try write("after.btsnoop", s.bytes)
        let before = try write("before.btsnoop", Self.capture(Self.base))
        let text = try runCLI(["diff", before, after, "--dissectors", Self.shipped]).stdout
        XCTAssertFalse(text.contains("\u{1b}"), text)
        XCTAssertTrue(
            text.contains(#"advertised name AA:BB:CC:11:22:33: (none) → <b>A</b>|*_\u{1b}[31mred @admin http://e.vil"#),
            text)
        XCTAssertTrue(text.contains("AA:BB:CC:11:22:33: connections 1 → 2"), text)
        let md = folder.appendingPathComponent("d.md").path
        XCTAssertEqual(try runCLI(["diff", before, after, "--dissectors", Self.shipped, "-o", md]).status, 0)
        let markdown = try String(contentsOfFile: md, encoding: .utf8)
        XCTAssertTrue(markdown.hasPrefix("### btlens diff"), markdown)
        // As the Markdown report escapes: no markup, no link, no mention.
        XCTAssertTrue(markdown.contains(#"&lt;b&gt;A&lt;/b&gt;\|\*\_\\u{1b}\[31mred \@admin http\://e.vil"#), markdown)
        XCTAssertFalse(markdown.contains("\u{1b}"), markdown)
        let json = folder.appendingPathComponent("d.json").path
        XCTAssertEqual(try runCLI(["diff", before, after, "--dissectors", Self.shipped, "-o", json]).status, 0)
        XCTAssertNotNil(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let pdf = try runCLI(["diff", before, after, "-o", folder.appendingPathComponent("d.pdf").path])
        XCTAssertEqual(pdf.status, 2)
        XCTAssertTrue(pdf.stderr.contains("cannot tell the format from"), pdf.stderr)
        let filtered = try runCLI([
            "diff", before, after, "--dissectors", Self.shipped, "-Y", "command in {0x20, 0xa0}",
        ])
        XCTAssertTrue(filtered.stdout.contains("\nfilter: command in {0x20, 0xa0}\n"), filtered.stdout)
    }

    /// The pairing method the SMP feature exchange implies is on the connection summary (stats)
    /// and is a connection fact for diff.
    func testThePairingMethodIsAConnectionFact() throws {
        func paired(responderIO: UInt8) -> [UInt8] {
            var s = LESession()
            s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
            // Pairing Request: KeyboardDisplay, bonding + MITM + Secure Connections; the response's IO varies.
            s.l2cap(handle: 0x40, .sent, cid: 0x0006, [0x01, 0x04, 0x00, 0x0d, 0x10, 0x03, 0x03])
            s.l2cap(handle: 0x40, .received, cid: 0x0006, [0x02, responderIO, 0x00, 0x0d, 0x10, 0x03, 0x03])
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        let before = try write("before.btsnoop", paired(responderIO: 0x01))
        let after = try write("after.btsnoop", paired(responderIO: 0x03))
        let stats = try runCLI(["stats", before]).stdout
        XCTAssertTrue(stats.contains("(LE Secure Connections, Numeric Comparison)"), stats)
        let (json, _) = try diff(before, after)
        let change = list(json, "connections").first { $0["name"] as? String == "pairing" }
        XCTAssertEqual(change?["before"] as? String, "LE Secure Connections, Numeric Comparison")
        XCTAssertEqual(change?["after"] as? String, "LE Secure Connections, Just Works")
    }

    /// The headset capture against itself with the Set Configuration at 44.1 kHz: the A2DP codec
    /// is the only connection change.
    func testAnA2DPCodecChangeIsAConnectionFact() throws {
        let original = SampleCaptures.headphoneAudio().bytes
        // Set Configuration (AVDTP 1.3 §8.9), SBC: 0x11 is 48 kHz joint stereo, 0x21 44.1 kHz.
        let configuration: [UInt8] = [0x30, 0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x11]
        guard
            let at = (0...(original.count - configuration.count)).first(where: {
                Array(original[$0..<$0 + configuration.count]) == configuration
            })
        else { return XCTFail("no Set Configuration in the sample") }
        var changed = original
        changed[at + configuration.count - 1] = 0x21
        let (json, _) = try diff(try write("before.btsnoop", original), try write("after.btsnoop", changed))
        let changes = list(json, "connections").map {
            "\($0["name"] ?? "") \($0["before"] ?? "") → \($0["after"] ?? "")"
        }
        XCTAssertEqual(
            changes,
            [
                "audio codec SEID 1 SBC 48000 Hz joint stereo, bitpool 2-53 → SEID 1 SBC 44100 Hz joint stereo, bitpool 2-53"
            ])
    }

    /// The page: a table per part, the file names escaped, nothing loaded from anywhere.
    func testTheHTMLPage() throws {
        let before = try write("<b>efore.btsnoop", Self.capture(Self.base))
        var exchanges = Self.base
        exchanges[4].corrupt = true
        let after = try write("after.btsnoop", Self.capture(exchanges))
        let page = folder.appendingPathComponent("diff.html").path
        let run = try runCLI(["diff", before, after, "--format", "html", "-o", page, "--dissectors", Self.shipped])
        XCTAssertEqual(run.status, 0, run.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("&lt;b&gt;efore.btsnoop"))
        XCTAssertFalse(html.contains("<b>efore"))
        XCTAssertTrue(html.contains("<h2>Diagnostics</h2>"))
        XCTAssertTrue(html.contains("<span class=\"sev-error\">a5.checksum.bad</span></td><td>0</td><td>1</td>"))
        XCTAssertTrue(html.contains("default-src 'none'"))
    }

    func testMarkdownAndTextSayTheSame() throws {
        let before = try write("before.btsnoop", Self.capture(Self.base))
        var exchanges = Self.base
        exchanges[4].corrupt = true
        let after = try write("after.btsnoop", Self.capture(mtu: 185, exchanges))
        let md = try runCLI(["diff", before, after, "--format", "md", "--dissectors", Self.shipped]).stdout
        XCTAssertTrue(md.contains("| `a5.checksum.bad` (error) | 0 | 1 |"), md)
        XCTAssertTrue(md.contains("| AA:BB:CC:11:22:33 ATT MTU | 247 | 185 |"), md)
        let text = try runCLI(["diff", before, after, "--dissectors", Self.shipped]).stdout
        XCTAssertTrue(text.contains("a5.checksum.bad (error): 0 → 1"), text)
        XCTAssertTrue(text.contains("AA:BB:CC:11:22:33: ATT MTU 247 → 185"), text)
    }
}
