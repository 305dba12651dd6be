import BTLensCore
import Foundation
import XCTest

/// The sink gathers lines in 64 KiB of memory and writes them out in large pieces: written to a
/// file, lines of every size (empty, small, across the 64 KiB mark, larger than it) come back whole
/// and in order.
final class OutputSinkTests: XCTestCase {
    func testLinesOfEverySizeReachTheFileInOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-sink-\(UUID().uuidString)")
            .path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { unlink(path) }
        var expected: [UInt8] = []
        do {
            let sink = OutputSink(fd: fd)
            for (i, size) in [0, 1, 100, 65_000, 600, 65_536, 3, 200_000, 65_535, 1].enumerated() {
                let line = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ i) }
                sink.write(line)
                expected += line
            }
            sink.flush()
            sink.write([0x0a])
            expected.append(0x0a)
        }
        close(fd)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), expected)
    }
}
