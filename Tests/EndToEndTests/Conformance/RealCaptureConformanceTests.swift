import BTLensCapture
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

/// Real phone captures from ../shared/captures (not redistributable, so never copied here).
/// Skipped when that folder is absent.
final class RealCaptureConformanceTests: XCTestCase {
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures")

    /// Record counts as tshark 4.0.17 / capinfos report them (SOURCES.txt).
    static let hciRecords = [
        "chsmartbulb_btsnoop_hci.log": 699,
        "a2dp_motog2013_lghbs730_btsnoop_hci.log": 3674,
        "batteread_capture.btsnoop": 6,
        "derived_chsmartbulb_h4phdr.pcap": 699,
        "derived_batteread_monitor.pcap": 6,
        "evenG2_test.pklg": 628,
        "isap_hci_dump.pklg": 161,
    ]

    func testHCICapturesHaveWiresharksRecordCounts() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        for (name, expected) in Self.hciRecords.sorted(by: { $0.key < $1.key }) {
            var reader = try CaptureFormat.open(path: Self.shared.appendingPathComponent(name).path)
            var records = 0
            var errors: [String] = []
            try Pipeline.run(&reader, onRecord: { _ in records += 1 }) { e in
                if let d = e.diagnostic, d.severity == .error { errors.append("#\(e.record) \(d.id)") }
            }
            XCTAssertEqual(records, expected, name)
            XCTAssertEqual(errors, [], name)
        }
    }

    func testA2DPCaptureReassemblesItsContinuationFragments() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        var reader = try CaptureFormat.open(
            path: Self.shared.appendingPathComponent("a2dp_motog2013_lghbs730_btsnoop_hci.log").path)
        var reassembled = 0
        var diagnostics: [String] = []
        let analyzer = try Pipeline.run(&reader) { e in
            if case .l2cap(let l) = e.body, l.firstRecord != e.record { reassembled += 1 }
            if let d = e.diagnostic { diagnostics.append(d.id) }
        }
        XCTAssertEqual(reassembled, 3)
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(analyzer.connections.all.count, 1)
        XCTAssertEqual(analyzer.connections.all.first?.address?.description, "00:18:6B:64:BC:A5")
    }

    func testEveryFileEitherDecodesOrIsRefusedWithAReason() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.shared.path).sorted()
        for name in files {
            do {
                var reader = try CaptureFormat.open(path: Self.shared.appendingPathComponent(name).path)
                try Pipeline.run(&reader) { _ in }
            } catch {
                XCTAssertFalse("\(error)".isEmpty, name)
            }
        }
    }

    func testThePcapFormOfACaptureGivesTheSameTimelineAsItsBTSnoopForm() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        func jsonl(_ name: String) throws -> [UInt8] {
            var reader = try CaptureFormat.open(path: Self.shared.appendingPathComponent(name).path)
            var out: [UInt8] = []
            let renderer = JSONLRenderer(verbose: true)
            try Pipeline.run(&reader) { out += renderer.render($0) ?? [] }
            return out
        }
        XCTAssertEqual(try jsonl("derived_chsmartbulb_h4phdr.pcap"), try jsonl("chsmartbulb_btsnoop_hci.log"))
        XCTAssertEqual(try jsonl("derived_batteread_monitor.pcap"), try jsonl("batteread_capture.btsnoop"))
    }

    func testIOSHeaderNotesAreCaptureInformation() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        let path = Self.shared.appendingPathComponent("evenG2_test.pklg").path
        var reader = try CaptureFormat.open(path: path)
        let stats = StatsCollector(file: path, info: reader.info)
        try Pipeline.run(&reader, onRecord: stats.record, onEvent: stats.event)
        XCTAssertEqual(
            Array(stats.captureNotes.prefix(3)),
            [
                "Product: iPhone17,2", "Firmware Version: 24.1.233.1342",
                "Chipset: BCM_4399, Revision: s=C2",
            ])
    }
}
