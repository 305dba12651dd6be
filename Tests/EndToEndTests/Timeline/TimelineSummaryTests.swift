import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

/// `timeline --summary` counts every diagnostic, not only the findings.
final class TimelineSummaryTests: XCTestCase {
    func testEveryDiagnosticIsCountedBySeverityAndId() throws {
        var reader = try CaptureFormat.open(MemorySource(SampleCaptures.faults().bytes))
        let summary = TimelineSummary()
        let table = DefinitionLoader.load([DissectorEndToEndTests.shipped], required: true).table
        let analyzer = try Pipeline.run(&reader, Configuration(dissectors: table), onEvent: summary.event)
        let text = summary.text(connections: analyzer.connectionSummaries)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("Diagnostics: 23 (3 errors, 18 warnings, 2 notes)"), text)
        XCTAssertTrue(lines.contains("  warning  a5.request.unanswered         7  first #25"), text)
        XCTAssertTrue(lines.contains("  note     capture.truncated             1  first #16"), text)
        XCTAssertTrue(lines.contains("Findings:    0"), text)
        // Aligned: every row's count ends in the same column.
        let rows = lines.filter { $0.hasPrefix("  error") || $0.hasPrefix("  warning") || $0.hasPrefix("  note") }
        XCTAssertEqual(rows.count, 14)
        XCTAssertEqual(Set(rows.map { $0.range(of: "  first")?.lowerBound.utf16Offset(in: $0) }).count, 1)
    }

    func testTheFirstRecordIsTheLeastWhateverTheOrder() {
        // A diagnostic put where its bytes began arrives after a later record's.
        let summary = TimelineSummary()
        for record in [12, 9, 15] {
            summary.event(
                Event(
                    record: record, timestamp: Timestamp(microseconds: 0), direction: .sent, connection: nil,
                    isTop: true,
                    body: .diagnostic(Diagnostic(FramingDiagnostics.resync, "skipped"))))
        }
        XCTAssertEqual(summary.diagnostics["a5.resync"]?.first, 9)
        XCTAssertEqual(summary.diagnostics["a5.resync"]?.count, 3)
    }
}
