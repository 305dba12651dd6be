import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensDefinitions

/// Definitions end to end: the shipped ones on the sample captures, and one written only from
/// Dissectors/README.md for a protocol btlens has never seen.
final class DissectorEndToEndTests: XCTestCase {
    static let repo = packageRoot
    static let shipped = repo.appendingPathComponent("Dissectors").path

    func shippedTable() throws -> DissectorTable {
        let loaded = DefinitionLoader.load([Self.shipped], required: true)
        XCTAssertEqual(loaded.errors, [])
        return loaded.table
    }

    /// Text timeline lines of A5 frames, messages and diagnostics, without the time column.
    func lines(_ bytes: [UInt8], _ table: DissectorTable, decodeAs: [DecodeAs] = []) throws -> [String] {
        var r = TextRenderer()
        return try analyze(bytes, dissectors: table, decodeAs: decodeAs).compactMap { e -> String? in
            switch e.body {
            case .frame, .diagnostic: break
            default: return nil
            }
            guard let line = r.render(e) else { return nil }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            return ([parts[0]] + parts[2...]).joined(separator: " ").trimmingCharacters(in: .newlines)
        }
    }

    func testShippedDefinitionsLoadAndTheirExamplesHold() throws {
        let table = try shippedTable()
        let definitions = table.dissectors.compactMap { $0 as? DefinitionDissector }
        XCTAssertEqual(definitions.map(\.name), ["aurora-headphones", "lawaken-lamp"])
        for d in definitions {
            XCTAssertFalse(d.examples.isEmpty, d.name)
            XCTAssertEqual(ExampleReplay.check(d), [], d.name)
        }
        let examples = DefinitionLoader.load([Self.shipped + "/examples"], required: true)
        XCTAssertEqual(examples.errors, [])
        for case let d as DefinitionDissector in examples.table.dissectors {
            XCTAssertEqual(ExampleReplay.check(d), [], d.name)
        }
    }

    /// The worked example in Dissectors/README.md loads and its example holds, so the README stays true.
    func testTheReadmeWorkedExampleHolds() throws {
        let readme = try String(contentsOfFile: Self.shipped + "/README.md", encoding: .utf8)
        let blocks = readme.components(separatedBy: "```yaml\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        guard let worked = blocks.first(where: { $0.hasPrefix("protocol: acme-band") }) else {
            return XCTFail("no worked example")
        }
        let d = try DefinitionParser.parse(text: worked, file: "README.md")
        XCTAssertEqual(d.examples.count, 1)
        XCTAssertEqual(ExampleReplay.check(d), [])
    }

    /// A value written whole to a value characteristic (0xFFF1, `framing: value`) is a message but
    /// neither request nor response: it was said to be unanswered at the disconnection.
    func testAValueWriteIsNotARequest() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x0e, 0x00, 0x0a, 0x0f, 0x00, 0xf1, 0xff])
        s.att(handle: 0x40, .sent, [0x12, 0x0f, 0x00, 0x02])
        s.att(handle: 0x40, .received, [0x13])
        s.disconnect(handle: 0x40)
        let out = try lines(s.bytes, try shippedTable())
        XCTAssertTrue(out.contains { $0.contains("AncModeValue") && $0.contains("mode=transparency") }, "\(out)")
        XCTAssertFalse(out.contains { $0.contains("a5.request.unanswered") }, "\(out)")
    }

    func testTheSessionSampleIsNamedAndPaired() throws {
        XCTAssertEqual(
            try lines(SampleCaptures.session().bytes, shippedTable()),
            [
                #"#18 > 0x0040 MSG 0x0006 (Firmware Revision String) FirmwareRevision revision="1.4.2""#,
                "#28 > 0x0040 MSG 0x000f (fff1) AncModeValue mode=noiseCancelling",
                "#29 < 0x0040 A5 0x0013 (fff3) SetEQPreset (0x20) seq 7 preset=bassBoost",
                "#30 > 0x0040 A5 0x0015 (fff4) SetEQPresetResponse (0xa0) seq 16 status=ok ← #29 in 1.25 ms",
                "#32 < 0x0040 A5 0x0013 (fff3) WriteSettings (0x21) seq 8 block=0 data=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d",
                "#33 > 0x0040 A5 0x0015 (fff4) WriteSettingsResponse (0xa1) seq 17 status=ok next_block=48 ← #32 in 1.25 ms",
                "#33 > 0x0040 A5 0x0015 (fff4) BatteryStatus (0x05) seq 18 state=full left=90% right=100%",
                "#38 < 0x0040 A5 0x0013 (fff3) SetAncMode (0x22) seq 9 mode=transparency",
                "#41 > 0x0040 A5 0x0015 (fff4) SetAncModeResponse (0xa2) seq 19 band_levels=[66 66 66 66 66 66 66 66 66 66 66 66] ← #38 in 3.75 ms",
                "#42 > 0x0040 A5 0x0015 (fff4) ErrorCounters (0x06) seq 20 counters=[9 8 7 6]",
                "#53 < 0x0040 A5 0x0013 (fff3) OtaData (0x30) seq 10 chunk=" + String(repeating: "5c", count: 80),
                "#55 > 0x0040 A5 0x0015 (fff4) OtaDataResponse (0xb0) seq 21 status=ok ← #53 in 2.5 ms",
            ])
    }

    func testTheFaultsSampleAddsPayloadAndPairingFindings() throws {
        let added = try lines(SampleCaptures.faults().bytes, shippedTable()).filter {
            $0.contains("a5.payload") || $0.contains("a5.request") || $0.contains("a5.response")
        }
        XCTAssertEqual(
            added,
            [
                "#10 < 0x0041 !WARN a5.payload.short: WriteSettings: field block needs 1 byte at payload offset 0, 0 left"
            ]
                + [(1, 4), (2, 5), (3, 6), (3, 7), (6, 8)].map { seq, record in
                    "#25 < 0x0041 !WARN a5.request.unanswered: SetEQPreset (0x20) sequence \(seq) sent at #\(record): no response before the end of the capture"
                } + [
                    "#25 < 0x0041 !WARN a5.request.unanswered: WriteSettings (0x21) sequence 7 sent at #10: no response before the end of the capture",
                    "#25 < 0x0041 !WARN a5.request.unanswered: SetEQPreset (0x20) sequence 9 sent at #17: no response before the end of the capture",
                ])
    }

    func testEverySampleCaptureIsDecodedWithNames() throws {
        let table = try shippedTable()
        for sample in SampleCaptures.all {
            // The mid-connection capture has neither discovery nor an address: bound by hand, as a user would.
            let decodeAs: [DecodeAs] =
                sample.file == "ble_mid_connection.btsnoop"
                ? [
                    .attHandle(0x0022, dissector: "aurora-headphones"),
                    .attHandle(0x0025, dissector: "aurora-headphones"),
                ] : []
            let frames = try analyze(sample.session.bytes, dissectors: table, decodeAs: decodeAs).compactMap {
                e -> FrameInfo? in
                if case .frame(let a) = e.body, a.isA5 { return a }
                return nil
            }
            XCTAssertEqual(frames.filter { $0.decoded?.name == nil }.map(\.frame.command), [], sample.file)
        }
        XCTAssertEqual(
            try lines(
                SampleCaptures.midConnection().bytes, table,
                decodeAs: [
                    .attHandle(0x0022, dissector: "aurora-headphones"),
                    .attHandle(0x0025, dissector: "aurora-headphones"),
                ]),
            [
                "#1 > 0x0042 !NOTE hci.connection.inferred: traffic on handle 0x0042 with no Connection Complete in the capture: the capture began mid-connection",
                "#1 > 0x0042 !NOTE l2cap.continuation_at_capture_start: continuation of 4 bytes before any start fragment: the capture began mid-PDU",
                "#2 > 0x0042 !WARN a5.resync: skipped 3 bytes that do not form a frame, before the frame with sequence 40: expected the magic 0xa5, found 0x07 (detected at #3)",
                "#3 > 0x0042 A5 0x0025 GetBatteryResponse (0x81) seq 40 left=1% right=2%",
                "#3 > 0x0042 !WARN a5.response.unsolicited: GetBatteryResponse (0x81) sequence 40: no outstanding request it answers",
                "#5 < 0x0042 A5 0x0022 GetBattery (0x01) seq 200",
                "#6 > 0x0042 A5 0x0025 GetBatteryResponse (0x81) seq 41 left=3% right=4% ← #5 in 1.25 ms",
            ])
    }

    func testTheIAP2SampleIsNamedThroughItsEAProtocol() throws {
        let named = try lines(SampleCaptures.bredrIAP2().bytes, shippedTable()).filter { $0.contains(" A5 ") }
        XCTAssertEqual(
            named,
            [
                "#29 < 0x000c A5 EA 5 (com.lawaken.iap2) SetColor (0x20) seq 1 red=1 green=2 blue=3",
                "#31 > 0x000c A5 EA 5 (com.lawaken.iap2) SetColorResponse (0xa0) seq 64 status=ok ← #29 in 2.5 ms",
                "#31 > 0x000c A5 EA 5 (com.lawaken.iap2) Brightness (0x05) seq 65 level=100% [bad checksum]",
            ])
    }

    func testJSONLCarriesNamesFieldsAndPairing() throws {
        let events = try analyze(SampleCaptures.session().bytes, dissectors: shippedTable())
        let r = JSONLRenderer()
        let json = events.filter { $0.record == 30 || $0.record == 28 }.compactMap { r.render($0) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        XCTAssertTrue(
            json.contains {
                $0.contains(#""type":"message","record":28"#) && $0.contains(#""framing":"value""#)
                    && $0.contains(
                        #""dissector":"aurora-headphones","command_name":"AncModeValue","kind":"event","fields":{"mode":"noiseCancelling"},"flags_names":[]"#
                    )
                    && !$0.contains(#""command":"#)
            }, json.joined())
        XCTAssertTrue(
            json.contains {
                $0.contains(#""type":"a5","record":30"#)
                    && $0.contains(
                        #""dissector":"aurora-headphones","command_name":"SetEQPresetResponse","kind":"response","fields":{"status":"ok"},"flags_names":[],"response_to":29,"latency_ms":1.25}"#
                    )
            },
            json.joined())
    }

    func testStatsCountCommandsWithLatency() throws {
        var reader = try CaptureFormat.open(MemorySource(SampleCaptures.session().bytes))
        let stats = StatsCollector(file: "s", info: reader.info)
        let analyzer = try Pipeline.run(
            &reader, Configuration(dissectors: shippedTable()),
            onRecord: stats.record, onEvent: stats.event)
        let json = stats.json(connections: analyzer.connectionSummaries)
        XCTAssertTrue(
            json.contains(
                #"{"dissector":"aurora-headphones","command":32,"name":"SetEQPreset","sent":1,"received":0,"answered":1,"unanswered":0,"latency_ms":{"min":1.25,"median":1.25,"p95":1.25,"max":1.25}}"#
            ), json)
        XCTAssertTrue(
            json.contains(
                #"{"dissector":"aurora-headphones","command":160,"name":"SetEQPresetResponse","sent":0,"received":1,"answered":0,"unanswered":0}"#
            ), json)
        XCTAssertTrue(
            stats.text(connections: []).contains("1.25 1.25 1.25 1.25  SetEQPreset (0x20) [aurora-headphones]"))
    }

    /// Another vendor's device ("AX-200", 12:34:56:78:9A:BC) on the generic 0xFFF3/0xFFF4 with a
    /// Battery Level: its own protocol, not A5, and one notification that happens to form an A5
    /// frame with command 0xa0 (Aurora's SetEQPresetResponse). LE Advertising Report: Core Vol 4,
    /// Part E, §7.7.65.2 (one report, ADV_IND, public address, AD type 0x09 Complete Local Name).
    static func otherVendor() -> LESession {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
        var s = LESession()
        let address: [UInt8] = [0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12]
        let name = Array("AX-200".utf8)
        let ad = [UInt8(name.count + 1), 0x09] + name
        s.event(0x3e, [0x02, 0x01, 0x00, 0x00] + address + [UInt8(ad.count)] + ad + [0xc4])
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: address)
        // Read By Group Type (services) and Read By Type (characteristics): Battery, vendor 0xFFF0.
        s.att(handle: h, .sent, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(
            handle: h, .received,
            [0x11, 0x06] + le16(0x0001) + le16(0x0008) + le16(0x180f) + le16(0x0010) + le16(0x0020) + le16(0xfff0))
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07] + le16(0x0002) + [0x12] + le16(0x0003) + le16(0x2a19)
                + le16(0x0011) + [0x0c] + le16(0x0012) + le16(0xfff3) + le16(0x0013) + [0x10] + le16(0x0014)
                + le16(0xfff4))
        s.att(handle: h, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: h, .received, [0x0b, 99])
        for i in 0..<20 {
            s.att(handle: h, .sent, [0x52, 0x12, 0x00] + Array("AT+VOL=\(i)\r".utf8))
            s.att(handle: h, .received, [0x1b, 0x14, 0x00, 0x01, UInt8(i), 0x7f])
        }
        s.att(handle: h, .received, [0x1b, 0x14, 0x00] + Frame.encode(command: 0xa0, sequence: 3, payload: [0x00]))
        s.disconnect(handle: h)
        return s
    }

    /// The shipped example binds 0xFFF3/0xFFF4 and the SIG battery only on its own devices: another
    /// vendor's device gets no Aurora names and no diagnostics the built-ins alone do not give.
    func testAnotherVendorsDeviceOnTheSameGenericUUIDsIsNotTheExample() throws {
        let bytes = Self.otherVendor().bytes
        let events = try analyze(bytes, dissectors: shippedTable())
        let named = events.compactMap { e -> String? in
            guard case .frame(let a) = e.body, let d = a.dissector else { return nil }
            return "#\(e.record) \(d) \(a.decoded?.name ?? "-")"
        }
        XCTAssertEqual(named, ["#10 sig-characteristics BatteryLevel"])
        let ids = { (events: [Event]) in events.compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id)" } } }
        XCTAssertEqual(ids(events), ids(try analyze(bytes, dissectors: .builtIn)))
        // The bundled captures of the Aurora headphone (AA:BB:CC:…) are still named: testTheSessionSampleIsNamedAndPaired.
    }

    /// The header of the Even G2 example says what the definition does: multi-packet messages are joined.
    func testTheEvenG2HeaderSaysMultiPacketMessagesAreJoined() throws {
        let text = try String(contentsOfFile: Self.shipped + "/examples/even-g2.yaml", encoding: .utf8)
        let header = text.split(separator: "\n").prefix { $0.hasPrefix("#") }.joined(separator: " ")
        XCTAssertFalse(header.contains("cannot express"), header)
        XCTAssertFalse(header.contains("a5.checksum.bad"), header)
        XCTAssertTrue(header.contains("fragment-count"), header)
        let d = try DefinitionParser.parse(text: text, file: "even-g2.yaml")
        guard case .frames(let format) = d.framing else { return XCTFail("not framed") }
        XCTAssertTrue(format.header.contains(.fragmentCount) && format.header.contains(.fragmentIndex))
    }
}
