import Foundation
import XCTest

/// Memory is bounded in bytes, not in records: what one thread hands the next is cut into batches of
/// at most 1 MiB of records, so a capture of huge records (SCO records of 256 KiB whose header says
/// 240 bytes) does not hold 2,048 of them in flight. Peak RSS of the built CLI, from its VmHWM.
final class RecordSizeMemoryTests: XCTestCase {
    /// Peak resident set of one run of the built btlens, in MB: its VmHWM, read until it exits.
    /// (wait4's ru_maxrss would not do: a child spawned by this large test process starts with the
    /// parent's high-water mark.)
    func peakRSS(_ arguments: [String]) throws -> Double {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw XCTSkip("btlens is not built beside the tests") }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        XCTAssertEqual(posix_spawn(&pid, binary.path, &actions, nil, argv, environ), 0)
        var status: Int32 = 0
        var peakKB = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peakKB = max(peakKB, kb)
            }
            usleep(2_000)
        }
        XCTAssertEqual(status, 0, "exit status of \(arguments)")
        XCTAssertGreaterThan(peakKB, 0, "VmHWM was read")
        return Double(peakKB) / 1024
    }

    func testHugeRecordsDoNotPileUpBetweenThreads() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-huge-\(getpid()).btsnoop")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let out = try FileHandle(forWritingTo: file)
        // btsnoop 1002 (formats.md): header, then records of 24 bytes each before their H4 packet.
        out.write(Data("btsnoop\0".utf8) + Data([0, 0, 0, 1, 0, 0, 0x03, 0xea]))
        let size = 262_144
        var packet = [UInt8](repeating: 0, count: size)
        packet[0] = 0x03  // H4 SCO
        packet[1] = 0x01  // handle 0x0001
        packet[3] = 0xf0  // the header's length: 240
        for i in 0..<400 {
            var header = [UInt8]()
            for v in [UInt32(size), UInt32(size), 0, 0] { header += withUnsafeBytes(of: v.bigEndian, Array.init) }
            header += withUnsafeBytes(of: (0x00dc_ddb3_0f2f_8000 + 1_700_000_000_000_000 + Int64(i) * 1000).bigEndian, Array.init)
            out.write(Data(header + packet))
        }
        try out.close()
        for arguments in [["stats", file.path], ["timeline", "--format", "jsonl", file.path]] {
            let peak = try peakRSS(arguments)
            XCTAssertLessThan(peak, 64, "\(arguments): peak RSS \(peak) MB for 105 MB of 256 KiB records")
        }
        let run = try runCLI(["timeline", file.path])
        XCTAssertTrue(run.stdout.contains("hci.length_mismatch: SCO packet: parameter length says 240 bytes, the record holds 262140"))
    }
}
