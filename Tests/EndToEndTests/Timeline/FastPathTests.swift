import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// The paths that skip work (no lower-layer events when nothing shows them, counts instead of
/// events and no value bytes when only counts are read) give exactly what the full path gives.
final class FastPathTests: XCTestCase {
    func testSkippingLowerLayersChangesNoTopLevelEvent() throws {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 3_000_000) { bytes += $0 }
        func top(lowerLayers: Bool) throws -> [UInt8] {
            var reader = try CaptureFormat.open(MemorySource(bytes))
            let renderer = JSONLRenderer()
            var out: [UInt8] = []
            try Pipeline.run(&reader, Configuration(lowerLayers: lowerLayers)) { e in
                guard e.isTop, let line = renderer.render(e) else { return }
                out += line
            }
            return out
        }
        let full = try top(lowerLayers: true)
        XCTAssertGreaterThan(full.count, 1_000_000)
        XCTAssertEqual(try top(lowerLayers: false), full)
    }

    /// In `.counts` detail the ATT PDUs and the frames no dissector decodes are counted, not sent:
    /// the tally is what the full path's events show, and the full path tallies nothing.
    func testCountsDetailTalliesWhatTheFullPathSends() throws {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 3_000_000) { bytes += $0 }
        var shown = Tally()
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let full = try Pipeline.run(&reader) { e in
            switch e.body {
            case .att(let a): shown.attOpcodes[Int(a.opcode.rawValue)] += 1
            case .frame(let a) where a.isA5:
                shown.a5Frames[Int((e.direction ?? .sent).rawValue)] += 1
                if !a.frame.checksumOK { shown.a5BadChecksum += 1 }
            default: break
            }
        }
        XCTAssertEqual(full.tally, Tally())
        XCTAssertGreaterThan(shown.a5BadChecksum, 0)
        XCTAssertGreaterThan(shown.a5Frames.min() ?? 0, 8_000)

        var sent = 0
        reader = try CaptureFormat.open(MemorySource(bytes))
        let counted = try Pipeline.run(&reader, Configuration(detail: .counts)) { e in
            switch e.body {
            case .att, .frame: sent += 1
            default: break
            }
        }
        XCTAssertEqual(sent, 0)
        XCTAssertEqual(counted.tally, shown)
    }

    /// `stats` runs in `.counts` detail: its counts, diagnostics and connections (subscriptions and
    /// oversized writes are judged from the PDU) are those of the full path, on the benchmark
    /// capture and every sample capture (those of `Captures/`), with the shipped dissectors.
    func testStatsInCountsDetailCountsTheSame() throws {
        var benchmark: [UInt8] = []
        BenchmarkCapture.generate(bytes: 3_000_000) { benchmark += $0 }
        let inputs = [("benchmark", benchmark)] + SampleCaptures.all.map { ($0.file, $0.session.bytes) }
        XCTAssertGreaterThan(inputs.count, 5)
        for (name, bytes) in inputs {
            try assertSameStats(name) { try CaptureFormat.open(MemorySource(bytes)) }
        }
    }

    /// The same on every real capture in ../shared/captures that opens (skipped when it is absent).
    func testStatsInCountsDetailCountsTheSameOnRealCaptures() throws {
        let folder = RealCaptureConformanceTests.shared
        try XCTSkipUnless(FileManager.default.fileExists(atPath: folder.path), "../shared/captures is absent")
        var compared = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let path = folder.appendingPathComponent(name).path
            // Files btlens refuses are RealCaptureConformanceTests' business.
            guard (try? CaptureFormat.open(path: path)) != nil else { continue }
            try assertSameStats(name) { try CaptureFormat.open(path: path) }
            compared += 1
        }
        XCTAssertGreaterThan(compared, 5)
    }

    /// The same where a definition does not fit: the Aurora definition forced onto every stream of
    /// the benchmark's two characteristics, the unbound device's random payloads included, so that
    /// frames are named by their length, decoded for their problems, and judged not to fit.
    func testStatsInCountsDetailCountsTheSameWhereADefinitionDoesNotFit() throws {
        var benchmark: [UInt8] = []
        BenchmarkCapture.generate(bytes: 3_000_000) { benchmark += $0 }
        let forced: [DecodeAs] = [
            .attHandle(0x0013, dissector: "aurora-headphones"), .attHandle(0x0015, dissector: "aurora-headphones"),
        ]
        let json = try assertSameStats("forced", decodeAs: forced) { try CaptureFormat.open(MemorySource(benchmark)) }
        for id in ["a5.payload.short", "a5.payload.extra", "a5.definition.mismatch"] {
            XCTAssertTrue(json.contains("\"\(id)\""), id)
        }
    }

    @discardableResult
    private func assertSameStats(
        _ name: String, decodeAs: [DecodeAs] = [], _ open: () throws -> any CaptureReader
    ) throws -> String {
        let table = DefinitionLoader.load([DissectorEndToEndTests.shipped], required: true).table
        func stats(_ detail: Analyzer.Detail) throws -> String {
            var reader = try open()
            let stats = StatsCollector(file: name, info: reader.info)
            let analyzer = try Pipeline.run(
                &reader, Configuration(decodeAs: decodeAs, dissectors: table, detail: detail),
                onRecord: stats.record, onProblem: stats.problem, onEvent: stats.event)
            stats.add(analyzer.tally)
            return stats.json(connections: analyzer.connectionSummaries, advertisers: analyzer.advertisers)
        }
        let full = try stats(.full)
        XCTAssertEqual(try stats(.counts), full, name)
        return full
    }
}
