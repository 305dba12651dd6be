import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

/// End to end over Captures/: the files are what their scripts build, and decoding them yields
/// exactly the frames and diagnostics the scripts put in.
final class SampleCaptureTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures")

    func testCommittedCapturesAreWhatTheScriptsBuild() throws {
        for sample in SampleCaptures.all {
            let url = Self.captures.appendingPathComponent(sample.file)
            let committed = try [UInt8](Data(contentsOf: url))
            XCTAssertEqual(
                committed, sample.session.bytes,
                "\(sample.file) differs from its script: run `swift run btlens-samples Captures`")
        }
        for sample in SnifferSamples.all {
            let committed = try [UInt8](Data(contentsOf: Self.captures.appendingPathComponent(sample.file)))
            XCTAssertEqual(
                committed, sample.bytes,
                "\(sample.file) differs from its script: run `swift run btlens-samples Captures`")
        }
    }

    func testEveryCaptureIsListedInTheManifest() throws {
        let manifest = try String(contentsOf: Self.captures.appendingPathComponent("README.md"), encoding: .utf8)
        for sample in SampleCaptures.all { XCTAssertTrue(manifest.contains(sample.file), sample.file) }
        for sample in SnifferSamples.all { XCTAssertTrue(manifest.contains(sample.file), sample.file) }
    }

    func testFramesAndDiagnosticsAreExactlyThoseOfTheScript() throws {
        for sample in SampleCaptures.all {
            let events = try analyze(sample.session.bytes)
            XCTAssertEqual(events.compactMap(\.expectedFrame), sample.session.expectedFrames, sample.file)
            let diagnostics = events.compactMap { e in
                e.diagnostic.map { LESession.ExpectedDiagnostic(id: $0.id, record: e.record) }
            }
            XCTAssertEqual(diagnostics, sample.session.expectedDiagnostics, sample.file)
        }
    }

    func testReadingInTinyPiecesGivesTheSameEvents() throws {
        for sample in SampleCaptures.all {
            let whole = try jsonl(analyze(sample.session.bytes))
            for size in [1, 7, 25] {
                XCTAssertEqual(
                    try jsonl(analyze(sample.session.bytes, chunk: size)), whole,
                    "\(sample.file) read \(size) at a time")
            }
        }
    }

    func testOutputIsDeterministic() throws {
        let bytes = SampleCaptures.session().bytes
        XCTAssertEqual(try jsonl(analyze(bytes)), try jsonl(analyze(bytes)))
    }

    func testLongReadAndDeviceInformationAreShown() throws {
        let events = try analyze(SampleCaptures.session().bytes)
        let texts = events.compactMap { e -> String? in
            if case .gattValue(let g) = e.body { return g.text }
            if case .att(let a) = e.body, case .string(let t)? = a.fields.first(where: { $0.0 == "text" })?.1 {
                return t
            }
            return nil
        }
        XCTAssertEqual(texts, ["1.4.2", "Aurora ANC Headphones, model AH-2024, hardware revision C, rev 0007"])
    }

    func testConnectionTableOfTheSession() throws {
        var reader = try CaptureFormat.open(MemorySource(SampleCaptures.session().bytes))
        let analyzer = try Pipeline.run(&reader) { _ in }
        let all = analyzer.connectionSummaries
        XCTAssertEqual(all.count, 1)
        XCTAssertEqual(all.first?.address?.description, "AA:BB:CC:11:22:33")
        XCTAssertEqual(all.first?.transport, .le)
        XCTAssertEqual(all.first?.role, .central)
        XCTAssertEqual(all.first?.openedRecord, 3)
        XCTAssertEqual(all.first?.closedRecord, 58)
        XCTAssertEqual(all.first?.disconnectReason?.name, "Connection Terminated By Local Host")
    }

    func testStatsOfTheFaultsCapture() throws {
        let bytes = SampleCaptures.faults().bytes
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let stats = StatsCollector(file: "faults", info: reader.info)
        let analyzer = try Pipeline.run(&reader, onRecord: stats.record, onEvent: stats.event)
        let json = stats.json(connections: analyzer.connectionSummaries)
        XCTAssertTrue(json.contains(#""records":25,"#), json)
        XCTAssertTrue(json.contains(#""a5_frames":{"total":11,"sent":7,"received":4,"checksum_bad":1}"#), json)
        XCTAssertTrue(json.contains(#""a5.sequence.gap":3"#), json)
        XCTAssertTrue(json.contains(#""truncated_records":1"#), json)
        XCTAssertTrue(json.contains(#""closed_record":null,"disconnect_reason":null"#), json)
    }

    private func jsonl(_ events: [Event]) -> [UInt8] {
        let r = JSONLRenderer(verbose: true)
        return events.flatMap { r.render($0) ?? [] }
    }
}

/// Android filtered snoop logs: ACL cut to 14 bytes; said once, and the cut PDUs are not protocol errors.
final class AndroidFilteredTests: XCTestCase {
    func testFilteredLogIsRecognisedOnce() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        let value = Frame.encode(command: 0x20, sequence: 1, payload: Array(repeating: 7, count: 20))
        let pdu = [0x52, 0x13, 0x00] + value
        for _ in 0..<3 {
            s.acl(handle: 0x40, .sent, boundary: 0b10, le16(pdu.count) + le16(4) + pdu, cutTo: 10)
        }
        let events = try analyze(s.bytes)
        let ids = events.filter(\.isTop).compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id)" } }
        XCTAssertEqual(ids, ["#4 capture.android_filtered"])
        XCTAssertEqual(events.compactMap(\.expectedFrame), [])
        XCTAssertEqual(
            events.filter { !$0.isTop && $0.diagnostic?.id == "capture.truncated" }.map(\.record), [5, 6],
            "the later cuts are detail, for --verbose")
    }

    /// AOSP's SnoopLogger counts the H4 byte in the 14 it keeps: records of 14 bytes, 13 of the packet.
    func testFourteenBytesCountingTheH4ByteAreTheFilteredLogToo() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        let value = Frame.encode(command: 0x20, sequence: 1, payload: Array(repeating: 7, count: 20))
        let pdu = [0x52, 0x13, 0x00] + value
        for _ in 0..<3 {
            s.acl(handle: 0x40, .sent, boundary: 0b10, le16(pdu.count) + le16(4) + pdu, cutTo: 9)
        }
        let events = try analyze(s.bytes)
        let ids = events.filter(\.isTop).compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id)" } }
        XCTAssertEqual(ids, ["#4 capture.android_filtered"])
        XCTAssertTrue(
            events.first { $0.diagnostic?.id == "capture.android_filtered" }?.diagnostic?.message
                .hasPrefix("ACL packets cut to 13 bytes (14 with the H4 byte)") == true)
        // Without an H4 byte (datalink 1001), 13 bytes are a cut like any other.
        var h1 = BTSnoopWriter(datalink: 1001)
        h1.add(.acl, .sent, [0x40, 0x20] + le16(pdu.count + 4) + le16(pdu.count) + le16(4) + pdu, time: 0, cutTo: 13)
        let h1IDs = try analyze(h1.bytes).filter(\.isTop).compactMap { $0.diagnostic?.id }
        XCTAssertTrue(h1IDs.contains("capture.truncated") && !h1IDs.contains("capture.android_filtered"), "\(h1IDs)")
    }

    /// Only received packets cut, each PDU sent in several ACL fragments: the filter and the
    /// continuations it orphans are one condition, said once.
    func testCutsInOneDirectionAndTheirContinuationsAreSaidOnce() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        let value = Frame.encode(command: 0x90, sequence: 1, payload: Array(repeating: 7, count: 40))
        let pdu = le16(value.count + 3) + le16(4) + [0x1b, 0x15, 0x00] + value
        for _ in 0..<5 {
            s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 0x01])
            s.acl(handle: 0x40, .received, boundary: 0b10, Array(pdu.prefix(27)), cutTo: 10)
            s.acl(handle: 0x40, .received, boundary: 0b01, Array(pdu.dropFirst(27)))
        }
        let events = try analyze(s.bytes)
        let shown = events.filter(\.isTop).compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id)" } }
        XCTAssertEqual(shown, ["#5 capture.android_filtered"])
        let detail = events.filter { !$0.isTop }.compactMap { $0.diagnostic?.id }
        XCTAssertEqual(detail.filter { $0 == "l2cap.continuation_after_cut" }.count, 5)
        XCTAssertEqual(detail.filter { $0 == "capture.truncated" }.count, 4)
        // stats counts what the timeline shows, as timeline --summary does.
        var reader = try CaptureFormat.open(MemorySource(s.bytes))
        let stats = StatsCollector(file: "filtered", info: reader.info)
        let summary = TimelineSummary()
        let analyzer = try Pipeline.run(&reader, onRecord: stats.record) {
            stats.event($0)
            summary.event($0)
        }
        let text = stats.text(connections: analyzer.connectionSummaries)
        XCTAssertTrue(text.contains("Diagnostics: 1\n        1     note capture.android_filtered\nUndecoded:"), text)
        XCTAssertEqual(Set(summary.diagnostics.keys), ["capture.android_filtered"])
    }

    private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
}
