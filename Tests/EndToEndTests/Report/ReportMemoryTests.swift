import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

/// What a report keeps until it is written (docs/limits.md): its rows packed and deflated, and no
/// second copy of the connection history. The heap in use is glibc's mallinfo2.
final class ReportMemoryTests: XCTestCase {
    struct Run {
        var report: Report
        /// Heap in use above what it was before decoding began: when the builder was done, and with
        /// the report finished.
        var beforeFinish: Int
        var afterFinish: Int
    }

    func run(_ bytes: [UInt8], _ options: ReportBuilder.Options) throws -> Run {
        let table = DefinitionLoader.load([DissectorEndToEndTests.shipped], required: true).table
        let start = OS.heapInUse()
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let builder = ReportBuilder(file: "capture.btsnoop", info: reader.info, options: options)
        let analyzer = try Pipeline.run(
            &reader, Configuration(dissectors: table), onRecord: builder.record, onEvent: builder.event)
        let connections = analyzer.connectionSummaries
        let before = OS.heapInUse()
        let report = builder.finish(connections: connections, gatt: analyzer.gatt)
        let after = OS.heapInUse()
        return Run(report: report, beforeFinish: before - start, afterFinish: after - start)
    }

    /// The benchmark's kind of capture (A5 frames with fields, ATT values, iAP2), its first 20,000
    /// events kept as rows: they hold about 115 bytes each (320 packed, 716 as Strings).
    func testRowsArePackedWhereTheyAreKept() throws {
        guard OS.heapInUse() > 0 else { throw XCTSkip("the heap in use is known on glibc and macOS only") }
        var capture: [UInt8] = []
        BenchmarkCapture.generate(bytes: 1_600_000) { capture += $0 }
        var all = ReportBuilder.Options()
        all.headRows = 20_000
        var none = ReportBuilder.Options()
        (none.headRows, none.context) = (0, 0)
        let kept = try run(capture, all)
        let few = try run(capture, none)
        XCTAssertEqual(kept.report.rows.count, 20_000)
        let perRow = (kept.afterFinish - few.afterFinish) / (kept.report.rows.count - few.report.rows.count)
        XCTAssertLessThan(perRow, 200, "heap per row")
    }

    /// 5,000 closed connections: the report reads them from the analyzer's history when it is
    /// written, rather than holding each one's strings (2 MB here, 5 MB at the benchmark's 600 MB).
    func testFinishingAReportCopiesNoConnections() throws {
        guard OS.heapInUse() > 0 else { throw XCTSkip("the heap in use is known on glibc and macOS only") }
        var s = LESession()
        for i in 0..<5_000 {
            let handle = UInt16(0x40 + i % 64)
            s.connect(handle: handle, address: [UInt8(i & 0xff), UInt8(i >> 8), 3, 4, 5, 6])
            // ATT Read Request (Core Vol 3 Part F §3.4.4.3) of handle 0x0003.
            s.att(handle: handle, .sent, [0x0a, 0x03, 0x00])
            s.disconnect(handle: handle)
        }
        let r = try run(s.bytes, ReportBuilder.Options())
        XCTAssertEqual(r.report.connections.count, 5_000)
        XCTAssertTrue(r.report.connections[4_999].steps.joined().contains("first ATT"))
        XCTAssertLessThan(r.afterFinish - r.beforeFinish, 300_000, "bytes the finished report added")
    }
}
