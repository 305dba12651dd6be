import BTLensCapture
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

/// Dissectors/examples/even-g2.yaml on the real Even G2 capture of ../shared (skipped without it):
/// a protocol written from Dissectors/README.md and the capture's bytes, framed with its CRC.
final class EvenG2ConformanceTests: XCTestCase {
    func testEveryMessageHoldsItsCRCMultiPacketOnesOnceJoined() throws {
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("evenG2_test.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let definition = DissectorEndToEndTests.shipped + "/examples/even-g2.yaml"
        let loaded = DefinitionLoader.load([definition], required: true)
        XCTAssertEqual(loaded.errors, [])
        var reader = try CaptureFormat.open(path: capture)
        var frames: [(record: Int, frame: Frame)] = []
        var problems: [String] = []
        let decodeAs: [DecodeAs] = [.attHandle(0x0842, dissector: "even-g2"), .attHandle(0x0844, dissector: "even-g2")]
        try Pipeline.run(&reader, Configuration(decodeAs: decodeAs, dissectors: loaded.table)) { e in
            if case .frame(let a) = e.body, a.dissector == "even-g2" { frames.append((e.record, a.frame)) }
            if let d = e.diagnostic, d.id.hasPrefix("a5."), d.id != "a5.sequence.gap" {
                problems.append("#\(e.record) \(d.id)")
            }
        }
        // 41 frames; four messages of 3 or 4 packets (count/index 03 01 … 03 03, one sequence number
        // each) are joined, their CRC in the last packet checked over the joined payload.
        XCTAssertEqual(frames.count, 32)
        XCTAssertEqual(frames.filter { !$0.frame.checksumOK }.map(\.record), [])
        XCTAssertEqual(
            frames.filter { $0.frame.isPartOfMessage }.map { "#\($0.record) \($0.frame.fragment?.count ?? 0)" },
            ["#124 4", "#136 3", "#148 3", "#159 3"])
        XCTAssertEqual(frames.first { $0.record == 124 }?.frame.payload.count, 737)
        // The glasses number frames per service: gaps in that direction are expected, nothing else is said.
        XCTAssertEqual(problems, [])
        XCTAssertEqual(frames.first?.frame.command, 0x8000)
        XCTAssertEqual(frames.first?.frame.payload, [0x08, 0x04, 0x10, 0x0c, 0x1a, 0x04, 0x08, 0x01, 0x10, 0x04])
    }
}
