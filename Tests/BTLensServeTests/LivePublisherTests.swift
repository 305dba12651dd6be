import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensServe

/// What the capture's thread hands the pages: the JSONL contract's lines with the row's text
/// beside them, and each record's layers and bytes.
final class LivePublisherTests: XCTestCase {
    /// A sample decoded as `follow --serve` decodes it (lower layers on), into a hub.
    static func published(_ name: String) throws -> (LiveHub, [CaptureRecord]) {
        let hub = LiveHub(mode: .follow, source: name)
        let publisher = LivePublisher(hub)
        var reader = try CaptureFormat.open(path: packageRoot.appendingPathComponent("Captures/\(name)").path)
        var records: [CaptureRecord] = []
        let analyzer = Analyzer(Configuration(dissectors: .builtIn, lowerLayers: true)) { publisher.event($0) }
        while let item = try reader.next() {
            if case .record(let r) = item {
                records.append(r)
                publisher.record(r)
            }
            analyzer.process(item)
        }
        analyzer.finish()
        publisher.finish(stopped: false)
        return (hub, records)
    }

    func testEachLineIsTheContractsWithTheTimelinesTextAdded() throws {
        let (hub, _) = try Self.published("ble_a5_faults.btsnoop")
        let events = try analyze(
            Array(Data(contentsOf: packageRoot.appendingPathComponent("Captures/ble_a5_faults.btsnoop"))))
        let jsonl = JSONLRenderer()
        var text = TextRenderer()
        let expected = events.filter(\.isTop).compactMap { e -> String? in
            guard let line = jsonl.render(e), let row = text.render(e) else { return nil }
            let object = String(decoding: line, as: UTF8.self).dropLast(2)  // "}\n"
            return object + #","timeline":"#
                + String(decoding: JSONWriter.encode(String(row.dropLast())), as: UTF8.self)
                + "}"
        }
        let held = hub.held.withLock { h in
            (0..<h.entries.count).map { String(decoding: h.entries[$0].line, as: UTF8.self) }
        }
        XCTAssertEqual(held, expected)
        // Every line parses, and a note keeps its own `text`.
        for line in held {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertTrue((object["timeline"] as? String)?.hasPrefix("#") ?? false, line)
            if object["type"] as? String == "note" { XCTAssertNotNil(object["text"] as? String, line) }
        }
    }

    func testARecordsDetailsAreItsLayersAndBytes() throws {
        let (hub, records) = try Self.published("ble_a5_faults.btsnoop")
        let details = try XCTUnwrap(hub.details(5))
        XCTAssertEqual(details.bytes, Array(records[4].payload))
        XCTAssertEqual(details.lines.count, 5, "\(details.lines)")
        XCTAssertTrue(details.lines[0].hasPrefix("#5 ") && details.lines[0].contains("ACL start handle 0x0041"))
        XCTAssertTrue(details.lines.contains { $0.contains("L2CAP ATT (0x0004)") })
        XCTAssertTrue(details.lines.allSatisfy { !$0.hasSuffix("\n") })
        // The same as decoding the file again up to it (view, once the hub no longer holds it).
        var reader = try CaptureFormat.open(
            path: packageRoot.appendingPathComponent("Captures/ble_a5_faults.btsnoop").path)
        let again = try RecordDetails.decode(&reader, Configuration(dissectors: .builtIn), record: 5)
        XCTAssertEqual(again?.lines, details.lines)
        XCTAssertEqual(again?.bytes, details.bytes)
    }

    func testDetailsAreBoundedNewestFirst() {
        var store = RecordDetailsStore()
        for n in 1...1000 {
            store.add(
                RecordDetails(record: n, bytes: Array(repeating: 0, count: 1000), originalLength: 1000), limit: 50_000)
            store.addLine(String(repeating: "x", count: 100), record: n, limit: 50_000)
        }
        XCTAssertNotNil(store.find(1000))
        XCTAssertNil(store.find(1))
        let oldest = try! XCTUnwrap(store.oldest)
        XCTAssertGreaterThan(oldest, 950)
        XCTAssertEqual(store.find(oldest)?.lines.count, 1)
    }
}
