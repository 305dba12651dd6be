import BTLensTestSupport
import Foundation
import XCTest
import ZIPFoundation

/// A bugreport .zip is hostile input too: a member that inflates without bound is refused past
/// `--limit archive-bytes`, nothing is left in the temporary folder however btlens ends, and an
/// archive is never followed.
final class ArchiveTests: XCTestCase {
    /// A zip whose one log member is `size` bytes: a btsnoop header, then zeros (a few KB deflated).
    func bomb(size: Int) throws -> String {
        let header = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xea]
        let archive = try Archive(data: Data(), accessMode: .create)
        try archive.addEntry(
            with: "FS/data/misc/bluetooth/logs/btsnoop_hci.log", type: .file, uncompressedSize: Int64(size),
            compressionMethod: .deflate, bufferSize: 1 << 20
        ) { position, count in
            var chunk = Data(count: count)
            if position == 0 { chunk.replaceSubrange(0..<header.count, with: header) }
            return chunk
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-bomb-\(UUID().uuidString).zip")
        try XCTUnwrap(archive.data).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func freshFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-tmpdir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testAMemberPastTheArchiveLimitIsRefusedNamingTheMemberAndTheLimit() throws {
        let path = try bomb(size: 8 << 20)
        let tmp = try freshFolder()
        // Each command the advice is given by takes the option it names.
        for command in ["timeline", "stats", "report", "convert"] {
            let out = tmp.appendingPathComponent(command == "report" ? "r.html" : "c.pcap").path
            let run = try runCLI(
                [command, path, "--limit", "archive-bytes=1000000"]
                    + (["report", "convert"].contains(command) ? ["-o", out] : []),
                environment: ["TMPDIR": tmp.path], timeout: 30)
            XCTAssertEqual(run.status, 1, command)
            XCTAssertEqual(run.stdout, "", command)
            XCTAssertTrue(
                run.stderr.contains(
                    "member FS/data/misc/bluetooth/logs/btsnoop_hci.log inflates to more than 1000000 bytes (--limit archive-bytes=1000000)"
                ),
                "\(command): \(run.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [])
        // Raised, the limit lets convert read the member.
        let raised = try runCLI(
            ["convert", path, "--limit", "archive-bytes=\(16 << 20)", "-o", tmp.appendingPathComponent("c.pcap").path],
            timeout: 30)
        XCTAssertEqual(raised.status, 0, raised.stderr)
    }

    /// The member is inflated into a file unlinked as soon as it is made: a signal in the middle of
    /// the extraction leaves nothing behind.
    func testNothingIsLeftInTheTemporaryFolderWhenInterruptedDuringExtraction() throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        let path = try bomb(size: 64 << 20)
        for signal in [SIGINT, SIGTERM] {
            let tmp = try freshFolder()
            let process = Process()
            process.executableURL = binary
            process.arguments = ["timeline", path, "--format", "jsonl"]
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Signalled once the extraction has begun (a file appears, with a name before this fix),
            // or after half a second.
            let deadline = Date().addingTimeInterval(0.5)
            while process.isRunning, Date() < deadline,
                (try FileManager.default.contentsOfDirectory(atPath: tmp.path)).isEmpty
            {
                usleep(2_000)
            }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [], "signal \(signal)")
        }
    }

    func testFollowSaysAnArchiveCannotBeFollowed() throws {
        let path = try bomb(size: 1000)
        let run = try runCLI(["follow", path], timeout: 10)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(
            run.stderr.contains("zip: a bugreport .zip is read whole, from a file: it cannot be followed"), run.stderr)
    }
}
