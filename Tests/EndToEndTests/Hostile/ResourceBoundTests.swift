import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// A hostile file cannot make btlens use unbounded memory: 400 links that each leave a 64 KiB PDU
/// unfinished would hold 26 MB without the reassembly bound. The heap in use (glibc's mallinfo2, mmapped blocks included)
/// is sampled while `stats` decodes the flood, with the default bound and with the bound lifted.
final class ResourceBoundTests: XCTestCase {
    /// The most heap in use above what it was before decoding began, in MB.
    func peakHeapGrowth(_ bytes: [UInt8], limits: Limits) throws -> Double {
        let before = OS.heapInUse()
        var peak = before
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let stats = StatsCollector(file: "flood", info: reader.info)
        var records = 0
        try Pipeline.run(
            &reader, Configuration(lowerLayers: false, limits: limits),
            onRecord: { r in
                stats.record(r)
                records += 1
                if records % 256 == 0 { peak = max(peak, OS.heapInUse()) }
            }, onEvent: stats.event)
        return Double(peak - before) / 1_048_576
    }

    func testAReassemblyFloodStaysWithinItsBound() throws {
        guard OS.heapInUse() > 0 else { throw XCTSkip("the heap in use is known on glibc and macOS only") }
        let flood = HostileCaptures.reassemblyFlood(handles: 400)
        let bounded = try peakHeapGrowth(flood, limits: Limits())
        var lifted = Limits()
        lifted.reassemblyBytes = 100 << 20
        let unbounded = try peakHeapGrowth(flood, limits: lifted)
        // The default bound is 4 MiB of PDUs; arrays may reserve twice what they hold while growing.
        XCTAssertLessThan(bounded, 12, "with the bound: \(bounded) MB")
        // And the test can tell: without the bound, the flood's 26 MB are held.
        XCTAssertGreaterThan(unbounded, 24, "without it: \(unbounded) MB")
    }
}
