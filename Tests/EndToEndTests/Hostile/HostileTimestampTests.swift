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
        let (folder, pcapng) = try convertedSample(self, "time")
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

/// A pcapng followed on stdin goes to libpcap through a pipe, where ftell was -1: a bad block then
/// named offset -1. The pipe's FILE counts what libpcap read, so the offset is the block's.
final class FollowedPcapOffsetTests: XCTestCase {
    func testABadBlockOnStdinNamesItsOffset() throws {
        let (folder, pcapng) = try convertedSample(self, "offset")
        // Walk the blocks (pcapng §3.1: type, total length, …) and give the fifth an absurd length.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pcapng))
        var offset = 0
        for _ in 0..<4 { offset += Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 }
        bytes.replaceSubrange(offset + 4..<offset + 8, with: [0xf0, 0xff, 0xff, 0x7f])
        let bad = folder.appendingPathComponent("bad.pcapng")
        try bytes.write(to: bad)
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["follow", "-", "--color", "never"]
        process.standardInput = try FileHandle(forReadingFrom: bad)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(text.contains("capture.record.past_end: record 3 at offset \(offset): pcapng block size"), text)
    }
}

/// A sample capture converted to pcapng by the built CLI, in a folder removed after `test`.
func convertedSample(_ test: XCTestCase, _ name: String) throws -> (folder: URL, pcapng: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-\(name)-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    let pcapng = folder.appendingPathComponent("x.pcapng").path
    let sample = JSONContractTests.root.appendingPathComponent("Captures/ble_mid_connection.btsnoop").path
    XCTAssertEqual(try runCLI(["convert", sample, "-o", pcapng]).status, 0)
    return (folder, pcapng)
}
