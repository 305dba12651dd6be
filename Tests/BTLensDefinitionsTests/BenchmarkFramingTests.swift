import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// The benchmark's other framings (scripts/benchmark --framings): the definition the generator writes
/// reads as the format the generator writes its frames in, so the timed runs name every frame.
final class BenchmarkFramingTests: XCTestCase {
    func testEachDefinitionReadsAsTheGeneratorsFormat() throws {
        let aurora = try String(
            contentsOf: packageRoot.appendingPathComponent("Dissectors/aurora-headphones.yaml"), encoding: .utf8)
        for framing in BenchmarkFraming.allCases {
            let d = try DefinitionParser.parse(text: framing.definition(aurora: aurora), file: "\(framing).yaml")
            guard case .frames(let format) = d.framing else { return XCTFail("\(framing): no frames") }
            XCTAssertEqual(format, framing.format, "\(framing)")
            XCTAssertEqual(d.examples.count, 0, "\(framing): the A5 examples are left out")
        }
    }

    func testEachFramingNamesItsFrames() throws {
        let aurora = try String(
            contentsOf: packageRoot.appendingPathComponent("Dissectors/aurora-headphones.yaml"), encoding: .utf8)
        for framing in BenchmarkFraming.allCases {
            var table = DissectorTable.builtIn
            try table.register(DefinitionLoader.load(text: framing.definition(aurora: aurora), file: "a.yaml"))
            var capture: [UInt8] = []
            BenchmarkCapture.generate(bytes: 400_000, framing: framing) { capture += $0 }
            var (named, failed) = (0, 0)
            for e in try analyze(capture, dissectors: table) {
                guard case .frame(let f) = e.body, f.dissector == "aurora-headphones" else { continue }
                if f.messageName != nil && f.frame.checksumOK != false { named += 1 } else { failed += 1 }
            }
            XCTAssertGreaterThan(named, 2_000, "\(framing)")
            // The faulty session's bad checksum, and its junk: a delimited framing's frame with junk
            // before it fails its checksum.
            XCTAssertLessThanOrEqual(failed, 2, "\(framing)")
        }
    }
}
