import BTLensTestSupport
import Foundation
import XCTest

/// The frames chart names each line so that two lines never read alike: the same characteristic on
/// two connections is two names, each with its connection.
final class ReportSeriesTests: XCTestCase {
    func testTheSameStreamOnTwoConnectionsIsTwoNames() throws {
        var s = LESession()
        for handle: UInt16 in [0x0040, 0x0041] {
            s.connect(handle: handle, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, UInt8(handle & 0xff)])
            s.frame(handle: handle, attHandle: 0x0013, .sent, command: 0x20, sequence: 1, payload: [0x01])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("series-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("c.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let out = folder.appendingPathComponent("r.json").path
        let run = try runCLI(["report", capture, "-o", out, "--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        let streams = try XCTUnwrap((json["series"] as? [String: Any])?["streams"] as? [[String: Any]])
        XCTAssertEqual(streams.compactMap { $0["stream"] as? String }, ["0x0040 0x0013", "0x0041 0x0013"])
    }
}
