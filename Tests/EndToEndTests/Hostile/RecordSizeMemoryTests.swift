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
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        XCTAssertEqual(posix_spawn(&pid, binary.path, &actions, nil, argv, environ), 0)
        var status: Int32 = 0
        var peakKB = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                peakKB = max(peakKB, kb)
            }
            usleep(2_000)
        }
        XCTAssertEqual(status, 0, "exit status of \(arguments)")
        XCTAssertGreaterThan(peakKB, 0, "VmHWM was read")
        return Double(peakKB) / 1024
    }

    /// A btsnoop 1002 file (docs/protocols/capture-formats.md: a header, then records of 24 bytes each before their H4
    /// packet) of the packets given, one record each, 1 ms apart.
    func capture(_ name: String, _ packets: [(bytes: [UInt8], flags: UInt32, times: Int)]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-\(name)-\(getpid()).btsnoop")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let out = try FileHandle(forWritingTo: file)
        out.write(Data("btsnoop\0".utf8) + Data([0, 0, 0, 1, 0, 0, 0x03, 0xea]))
        var i: Int64 = 0
        for (packet, flags, times) in packets {
            for _ in 0..<times {
                var header = [UInt8]()
                for v in [UInt32(packet.count), UInt32(packet.count), flags, 0] {
                    header += withUnsafeBytes(of: v.bigEndian, Array.init)
                }
                header += withUnsafeBytes(
                    of: (0x00dc_ddb3_0f2f_8000 + 1_700_000_000_000_000 + i * 1000).bigEndian, Array.init)
                out.write(Data(header + packet))
                i += 1
            }
        }
        try out.close()
        return file
    }

    func testHugeRecordsDoNotPileUpBetweenThreads() throws {
        var packet = [UInt8](repeating: 0, count: 262_144)
        packet[0] = 0x03  // H4 SCO
        packet[1] = 0x01  // handle 0x0001
        packet[3] = 0xf0  // the header's length: 240
        let file = try capture("huge", [(packet, 0, 400)])
        for arguments in [["stats", file.path], ["timeline", "--format", "jsonl", file.path]] {
            let peak = try peakRSS(arguments)
            XCTAssertLessThan(peak, 64, "\(arguments): peak RSS \(peak) MB for 105 MB of 256 KiB records")
        }
        let run = try runCLI(["timeline", file.path])
        XCTAssertTrue(
            run.stdout.contains(
                "hci.length_mismatch: SCO packet: parameter length says 240 bytes, the record holds 262140"))
    }

    /// The largest ACL packets there are (65,535 bytes, Core Vol 4 Part E §5.4.2), each one ATT
    /// Handle Value Notification (Vol 3 Part F §3.4.7.1) on an LE link: every event holds a 64 KiB
    /// value. Events in flight are weighed in bytes, and the report keeps 64 bytes of a value per row
    /// (it was 290 MB for the timeline and 1.16 GB for the report).
    func testEventsOfMaximumSizeValuesAreBoundedInBytes() throws {
        // HCI LE Connection Complete (Vol 4 Part E §7.7.65.1): handle 0x0040, central, 30 ms.
        let connected: [UInt8] = [
            0x04, 0x3e, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6,
            24, 0, 0, 0, 0x90, 0x01, 0x00,
        ]
        // H4 ACL, handle 0x0040 first automatically flushable, 65,535 bytes: L2CAP 65,531 on CID 0x0004.
        let notification =
            [0x02, 0x40, 0x20, 0xff, 0xff, 0xfb, 0xff, 0x04, 0x00, 0x1b, 0x10, 0x00]
            + (0..<65_528).map { UInt8(truncatingIfNeeded: $0) }
        let file = try capture("values", [(connected, 3, 1), (notification, 1, 1_600)])
        let html = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-values-\(getpid()).html")
        addTeardownBlock { try? FileManager.default.removeItem(at: html) }
        // The text timeline: its relay is the JSONL one's, and a debug build writes 210 MB of JSONL hex slowly.
        for arguments in [["timeline", "-v", file.path], ["report", file.path, "-o", html.path]] {
            let peak = try peakRSS(arguments)
            XCTAssertLessThan(peak, 64, "\(arguments): peak RSS \(peak) MB for 105 MB of 64 KiB values")
        }
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(
            page.contains("3c 3d 3e 3f … (+65464 bytes)"), "a row shows 64 bytes of a value and counts the rest")
    }
}
