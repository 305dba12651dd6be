import XCTest
import BTLensCore
import BTLensCapture
import BTLensDissect
import BTLensReport
import BTLensTestSupport

/// The paths that skip work (no lower-layer events when nothing shows them) give exactly the
/// frames and diagnostics of the full path, on a mid-size benchmark capture.
final class FastPathTests: XCTestCase {
    func testSkippingLowerLayersChangesNoTopLevelEvent() throws {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 3_000_000) { bytes += $0 }
        func top(lowerLayers: Bool) throws -> [UInt8] {
            var reader = try CaptureFormat.open(MemorySource(bytes))
            let renderer = JSONLRenderer()
            var out: [UInt8] = []
            try Pipeline.run(&reader, lowerLayers: lowerLayers) { e in
                guard e.isTop, let line = renderer.render(e) else { return }
                out += line
            }
            return out
        }
        let full = try top(lowerLayers: true)
        XCTAssertGreaterThan(full.count, 1_000_000)
        XCTAssertEqual(try top(lowerLayers: false), full)
    }
}
