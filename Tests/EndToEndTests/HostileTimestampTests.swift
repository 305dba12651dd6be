import Foundation
import XCTest
@testable import BTLensCapture

/// A pcapng block whose 64-bit timestamp is large (a few bit flips) gave libpcap seconds whose
/// conversion to microseconds overflowed and killed btlens (SIGILL). The time saturates and is said.
final class HostileTimestampTests: XCTestCase {
    func testMicrosecondsSaturate() {
        XCTAssertEqual(PcapReader.microseconds(seconds: 1_700_000_000, micros: 5), 1_700_000_000_000_005)
        XCTAssertEqual(PcapReader.microseconds(seconds: .max / 2, micros: 0), .max)
        XCTAssertEqual(PcapReader.microseconds(seconds: .min / 2, micros: 0), .min)
        XCTAssertEqual(PcapReader.microseconds(seconds: .max / 1_000_000, micros: 999_999), .max)
    }

    func testAPcapngWithAHugeBlockTimestampIsDecoded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-time-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let pcapng = folder.appendingPathComponent("x.pcapng").path
        let sample = JSONContractTests.root.appendingPathComponent("Captures/ble_mid_connection.btsnoop").path
        XCTAssertEqual(try runCLI(["convert", sample, "-o", pcapng]).status, 0)
        // Byte 0x3f is the top byte of the first Enhanced Packet Block's timestamp (after a 28-byte
        // Section Header Block and a 20-byte Interface Description Block; pcapng §4.3).
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pcapng))
        bytes[0x3f] = 0x80
        let mutant = folder.appendingPathComponent("y.pcapng").path
        try bytes.write(to: URL(fileURLWithPath: mutant))
        for arguments in [["timeline", mutant], ["timeline", mutant, "--format", "jsonl"], ["stats", mutant]] {
            let run = try runCLI(arguments, timeout: 30)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
        }
        XCTAssertTrue(try runCLI(["timeline", mutant]).stdout.contains("capture.time.absurd"))
    }
}
