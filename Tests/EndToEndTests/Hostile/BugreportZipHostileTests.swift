import BTLensTestSupport
import Foundation
import XCTest

/// Bugreport zips that lie, each run through every command that reads a capture, as a separate
/// process with a time and memory limit: each says what is wrong in the same words whatever the
/// command.
final class BugreportZipHostileTests: XCTestCase {
    static let log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    static let memoryLimit = 1 << 30

    func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func write(_ bytes: [UInt8], in folder: String) throws -> String {
        let path = folder + "/bugreport.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every command that reads a capture, over `path` (`extra` after it), writing into `folder`.
    func commands(_ path: String, in folder: String, _ extra: [String] = []) -> [(String, [String])] {
        [
            ("timeline", ["timeline", path] + extra),
            ("stats", ["stats", path] + extra),
            ("report", ["report", path, "-o", folder + "/r.html"] + extra),
            ("convert", ["convert", path, "-o", folder + "/c.pcapng"] + extra),
            ("diff", ["diff", path, path] + extra),
            ("index", ["index", "--db", folder + "/s.sqlite", path]),
            ("export", ["export", "--dataset", folder + "/dataset", path]),
        ]
    }

    /// The damaged member is read as far as it goes, and every command says what is wrong with it:
    /// on its output, in the report, or (`index`, `export`) in the rows it writes.
    func assertSaidByEveryCommand(_ zip: [UInt8], _ message: String) throws {
        let dir = try folder()
        let path = try write(zip, in: dir)
        for (name, arguments) in commands(path, in: dir) {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            var said = run.stdout + run.stderr
            switch name {
            case "report": said = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
            case "index":
                said = try runCLI(
                    ["query", "--db", dir + "/s.sqlite", "SELECT id, message FROM diagnostics"], timeout: 30
                ).stdout
                XCTAssertTrue(said.contains("capture.archive.damaged"), said)
            case "export":
                let rows = dir + "/dataset/diagnostics/"
                said = try FileManager.default.contentsOfDirectory(atPath: rows).map {
                    try String(contentsOfFile: rows + $0, encoding: .utf8)
                }.joined()
            default: break
            }
            XCTAssertTrue(said.contains(message), "\(name): \(said)")
        }
    }

    func testABadCRCIsSaidByEveryCommand() throws {
        let capture = SampleCaptures.session().bytes
        let crc = BugreportZip.crc32(capture)
        let zip = BugreportZip.single(Self.log, data: capture, method: 0, crc: crc ^ 1, size: capture.count)
        try assertSaidByEveryCommand(
            zip, "its CRC-32 is 0x\(String(format: "%08x", crc)), the archive says 0x\(String(format: "%08x", crc ^ 1))"
        )
    }
}
