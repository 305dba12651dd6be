import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// A device name read in parts (a Read Response, then a Read Blob Response) is hidden in each
/// part's row too, not only in the joined long read.
final class RedactionLongReadTests: XCTestCase {
    func testEachPartOfALongReadOfTheNameIsHidden() throws {
        let name = Array("Bob's Extremely Long Ring Name ProMax".utf8)
        var s = LESession()
        s.connect(handle: 0x0040, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        // Read By Type Response (Core Vol 3 Part F §3.4.4.2): the Device Name characteristic (0x2a00)
        // declared at 0x0002, its value at 0x0003.
        s.att(handle: 0x0040, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x0040, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2a])
        // The default MTU of 23: a Read Response of 22 bytes, then a Read Blob from offset 22.
        s.att(handle: 0x0040, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x0040, .received, [0x0b] + Array(name.prefix(22)))
        s.att(handle: 0x0040, .sent, [0x0c, 0x03, 0x00, 22, 0x00])
        s.att(handle: 0x0040, .received, [0x0d] + Array(name.dropFirst(22)))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("longname-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("c.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let parts = [Array(name.prefix(22)), Array(name.dropFirst(22))]
        for format in ["html", "json", "md", "txt"] {
            let out = folder.appendingPathComponent("r.\(format)").path
            let plain = try runCLI(["report", capture, "-o", out])
            XCTAssertEqual(plain.status, 0, plain.stderr)
            let unredacted = try String(contentsOfFile: out, encoding: .utf8).lowercased()
            let run = try runCLI(["report", capture, "-o", out, "--redact"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let text = try String(contentsOfFile: out, encoding: .utf8).lowercased()
            for part in parts {
                // Each part's first 8 bytes, as the rows write them.
                let spellings = [Hex.spaced(part.prefix(8)), Hex.string(part.prefix(8))]
                if format != "md" && format != "txt" {
                    XCTAssertTrue(spellings.contains { unredacted.contains($0) }, "\(format): shown unredacted")
                }
                for written in spellings { XCTAssertFalse(text.contains(written), "\(format): \(written)") }
            }
            XCTAssertFalse(text.contains("extremely"), format)
        }
    }
}
