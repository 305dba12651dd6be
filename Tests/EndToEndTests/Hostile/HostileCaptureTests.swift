import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// The hostile captures (docs/hostile-captures.md): each gives exactly the diagnostics its script
/// expects (built-in dissectors only), still yields the frames it carries, and renders everywhere.
final class HostileCaptureTests: XCTestCase {
    func testEachHostileCaptureGivesExactlyItsDiagnostics() throws {
        for c in HostileCaptures.all(zeroLengthRecords: 10_000) {
            let events = try analyze(c.bytes)
            let got = events.compactMap { e in e.diagnostic.map { "\($0.id) #\(e.record)" } }.sorted()
            XCTAssertEqual(got, c.expected, c.file)
            if !c.frames.isEmpty { XCTAssertEqual(events.compactMap(\.expectedFrame), c.frames, c.file) }
            // Every renderer takes every event.
            var text = TextRenderer(verbose: true, color: true)
            let jsonl = JSONLRenderer(verbose: true)
            for e in events {
                XCTAssertNotNil(jsonl.render(e).map { !$0.isEmpty } ?? true)
                _ = text.render(e)
            }
        }
    }

    func testTheGeneratorIsDeterministic() {
        let a = HostileCaptures.all(zeroLengthRecords: 100)
        let b = HostileCaptures.all(zeroLengthRecords: 100)
        XCTAssertEqual(a.map(\.bytes), b.map(\.bytes))
        XCTAssertEqual(Set(a.map(\.file)).count, a.count, "file names are unique")
    }
}

extension HostileCaptureTests {
    func testHostileDefinitionsAreRefusedWithTheirError() {
        for d in HostileCaptures.definitions {
            do {
                _ = try DefinitionLoader.load(text: d.text, file: d.file)
                XCTFail("\(d.file) loaded")
            } catch {
                XCTAssertTrue("\(error)".hasPrefix(d.error), "\(d.file): \(error)")
            }
        }
    }
}

extension HostileCaptureTests {
    static let docs = packageRoot.appendingPathComponent("docs").path

    func testTheDocsNameEveryHostileCaptureAndEveryLimit() throws {
        let hostile = try String(contentsOfFile: Self.docs + "/hostile-captures.md", encoding: .utf8)
        for name in HostileCaptures.all(zeroLengthRecords: 1).map(\.file) + HostileCaptures.definitions.map(\.file)
            + ["reassembly_flood.btsnoop"]
        {
            XCTAssertTrue(hostile.contains("`\(name)`"), name)
        }
        let limits = try String(contentsOfFile: Self.docs + "/limits.md", encoding: .utf8)
        let defaults = Limits()
        for (name, keyPath, _) in Limits.names {
            XCTAssertTrue(limits.contains("| `\(name)` | \(defaults[keyPath: keyPath]) |"), name)
        }
    }

    func testLimitSettingsParse() {
        XCTAssertEqual(Limits().setting("reassembly-bytes=1_000")?.reassemblyBytes, 1000)
        XCTAssertNil(Limits().setting("reassembly-bytes=0"))
        XCTAssertNil(Limits().setting("nonsense=5"))
        XCTAssertNil(Limits().setting("pending-requests"))
    }
}

extension HostileCaptureTests {
    /// Every diagnostic a capture can raise is declared (btlens diagnostics lists it), under one id.
    func testEveryDiagnosticRaisedIsDeclared() throws {
        let declared = Analyzer.diagnosticKinds
        XCTAssertEqual(Set(declared.map(\.id)).count, declared.count, "ids are unique")
        let captures = HostileCaptures.all(zeroLengthRecords: 10).map(\.bytes) + SampleCaptures.all.map(\.session.bytes)
        for bytes in captures {
            for e in try analyze(bytes) {
                guard let d = e.diagnostic else { continue }
                XCTAssertTrue(declared.contains(d.kind), "\(d.id) is not in Analyzer.diagnosticKinds")
            }
        }
    }
}
