import BTLensCapture
import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens follow` as a user runs it: the built CLI in its own process, stopped by SIGINT or SIGTERM
/// while it waits on a quiet pipe, a quiet socket, a file that does not grow, or a pcap/pcapng
/// stream read by libpcap. Each stops within a second, exits 0 and says so on stderr; a record cut
/// by the stop is one note, not an error. A file that exists but cannot be read is not waited for.
final class FollowSignalTests: XCTestCase {
    /// How long a stop may take, from the signal to the exit.
    static let stopDeadline = 1.0
    /// The session sample: 58 records, no diagnostics.
    let capture = SampleCaptures.session().bytes

    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("btlens").path

    /// A btlens started in its own process; stdout is read as it comes, so a test waits for a line,
    /// never for a time.
    final class Running {
        let process = Process()
        let stdin = Pipe()
        private let out = Pipe(), err = Pipe()
        private let exited = DispatchSemaphore(value: 0)
        private(set) var stdout = ""
        private(set) var stderr = ""

        init(_ arguments: [String], as user: [String] = []) throws {
            guard FileManager.default.isExecutableFile(atPath: FollowSignalTests.binary) else {
                throw XCTSkip("btlens is not built beside the tests")
            }
            process.executableURL = URL(fileURLWithPath: user.isEmpty ? FollowSignalTests.binary : user[0])
            process.arguments = Array(user.dropFirst()) + (user.isEmpty ? [] : [FollowSignalTests.binary]) + arguments
            // Away from the repository, whose example dissectors would be loaded from the folder.
            process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
            process.standardInput = stdin
            process.standardOutput = out
            process.standardError = err
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
        }

        /// Reads stdout until a line holding `text` has come; false when stdout ends or 30 s pass first.
        func waitForOutput(_ text: String) -> Bool {
            let fd = out.fileHandleForReading.fileDescriptor
            let deadline = Date().addingTimeInterval(30)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !stdout.split(separator: "\n").contains(where: { $0.contains(text) }) {
                var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                let left = Int32(deadline.timeIntervalSinceNow * 1000)
                guard left > 0, OS.poll(&p, left) > 0 else { return false }
                let n = OS.read(fd, &buffer, buffer.count)
                guard n > 0 else { return false }
                stdout += String(decoding: buffer[..<n], as: UTF8.self)
            }
            return true
        }

        /// Waits until btlens' main thread sleeps in a system call, waiting for input: where a signal
        /// must reach it. False when it does not within 30 s.
        func waitUntilWaiting() -> Bool {
            let path = "/proc/\(process.processIdentifier)/stat"
            for _ in 0..<30_000 {
                // "pid (name) S ...": the state follows the name, which may itself hold ") ".
                guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let end = stat.lastIndex(of: ")")
                else { return false }
                if stat[end...].hasPrefix(") S") { return true }
                usleep(1_000)
            }
            return false
        }

        /// Sends `signal`, then waits for the exit: the seconds it took, or nil when it did not
        /// exit within `seconds` (it is then killed, so no test is left hanging).
        func stop(_ signal: Int32, within seconds: Double) -> Double? {
            let start = Date()
            OS.kill(process.processIdentifier, signal)
            return exit(within: seconds).map { _ in Date().timeIntervalSince(start) }
        }

        /// Waits for the exit and reads the rest of the output; nil when it did not exit in time.
        func exit(within seconds: Double) -> Int32? {
            guard exited.wait(timeout: .now() + seconds) == .success else {
                OS.kill(process.processIdentifier, SIGKILL)
                exited.wait()
                finish()
                return nil
            }
            finish()
            return process.terminationStatus
        }

        private func finish() {
            stdout += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            stderr += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try? stdin.fileHandleForWriting.close()
        }
    }

    static let signals: [(Int32, String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]

    /// A signal is sent once btlens waits, which these tests see in /proc (Linux's).
    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/stat") else {
            throw XCTSkip("needs /proc to see when btlens waits")
        }
    }

    /// A btsnoop record header and the first byte of its payload: record 59 of the sample, cut.
    var cutRecord: [UInt8] { Array(capture[16..<16 + 24 + 1]) }

    /// Stops `run` with `signal` once record 58's events are out, and checks the exit and the words.
    func checkStop(
        _ run: Running, _ signal: (Int32, String), cutInside: Int?, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertTrue(
            run.waitForOutput("#58 "), "\(signal.1): record 58 is shown before the stop\n\(run.stderr)", file: file,
            line: line)
        XCTAssertTrue(run.waitUntilWaiting(), "\(signal.1): waits for more", file: file, line: line)
        let took = run.stop(signal.0, within: Self.stopDeadline)
        XCTAssertNotNil(
            took, "\(signal.1): still running \(Self.stopDeadline) s after the signal\n\(run.stderr)", file: file,
            line: line)
        XCTAssertEqual(
            run.process.terminationReason, .exit, "\(signal.1): exits, is not killed", file: file, line: line)
        XCTAssertEqual(run.process.terminationStatus, 0, "\(signal.1)\n\(run.stderr)", file: file, line: line)
        let summary = cutInside == nil ? "0 diagnostics (0 errors)" : "1 diagnostic (0 errors)"
        let last = run.stderr.split(separator: "\n").last ?? ""
        XCTAssertTrue(
            last.hasPrefix("btlens: stopped after 58 records: ")
                && last.hasSuffix(", \(summary); 0 partial frames or packets left in buffers (reported above)"),
            "\(signal.1): the summary on stderr\n\(run.stderr)", file: file, line: line)
        for wrong in ["claims", "ends after", "Interrupted", "error reading", "truncated dump"] {
            XCTAssertFalse(
                run.stderr.contains(wrong) || run.stdout.contains(wrong), "\(signal.1): a stop is not \"\(wrong)\"",
                file: file, line: line)
        }
        let lines = run.stdout.split(separator: "\n")
        let stopped = lines.filter { $0.contains("capture.follow.stopped_in_record") }
        if let cutInside {
            // One line for the cut record: the note, nothing decoded from its part.
            let cut = lines.filter { $0.hasPrefix("#\(cutInside) ") }
            XCTAssertEqual(
                stopped, cut, "\(signal.1): nothing more is said of the cut record\n\(run.stdout)", file: file,
                line: line)
            XCTAssertEqual(stopped.count, 1, "\(signal.1): one note\n\(run.stdout)", file: file, line: line)
            XCTAssertTrue(
                stopped.first?.contains("following stopped inside record \(cutInside)") == true,
                "\(signal.1): \(stopped)", file: file, line: line)
        } else {
            XCTAssertEqual(stopped, [], "\(signal.1): stopped between records", file: file, line: line)
        }
    }

    /// `(cat LOG; sleep 20) | btlens follow -`, with the last record cut.
    func testSignalsStopFollowOnAQuietPipe() throws {
        for signal in Self.signals {
            let run = try Running(["follow", "-", "--color", "never"])
            run.stdin.fileHandleForWriting.write(Data(capture + cutRecord))
            checkStop(run, signal, cutInside: 59)
        }
    }

    /// `btlens follow --connect`, to a peer that sends a capture and then keeps quiet.
    func testSignalsStopFollowOnAQuietSocket() throws {
        for signal in Self.signals {
            let (server, port) = try XCTUnwrap(OS.listenOnLoopback())
            defer { OS.close(server) }
            let run = try Running(["follow", "--connect", "127.0.0.1:\(port)", "--color", "never"])
            var p = [pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            XCTAssertEqual(OS.poll(&p, 30_000), 1, "btlens connects")
            let client = OS.accept(server)
            defer { OS.close(client) }
            _ = capture.withUnsafeBytes { OS.write(client, $0.baseAddress, $0.count) }
            checkStop(run, signal, cutInside: nil)
            XCTAssertTrue(run.stderr.hasPrefix("btlens: connected to 127.0.0.1:\(port)\n"), run.stderr)
        }
    }

    /// A followed file that stops growing inside a record.
    func testSignalsStopFollowOnAFileThatStoppedGrowing() throws {
        let path = NSTemporaryDirectory() + "follow-stop-\(UUID().uuidString).btsnoop"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(capture + cutRecord)))
        for signal in Self.signals {
            checkStop(try Running(["follow", path, "--color", "never"]), signal, cutInside: 59)
        }
    }

    /// pcap (last record cut) and pcapng, read by libpcap: the stop is not "Interrupted system call".
    func testSignalsStopFollowOnALibpcapFile() throws {
        let btsnoop = NSTemporaryDirectory() + "follow-stop-\(UUID().uuidString).btsnoop"
        XCTAssertTrue(FileManager.default.createFile(atPath: btsnoop, contents: Data(capture)))
        defer { unlink(btsnoop) }
        for format in [CaptureWriter.Format.pcap, .pcapng] {
            let path = NSTemporaryDirectory() + "follow-stop-\(UUID().uuidString).\(format.rawValue)"
            defer { unlink(path) }
            var reader = try CaptureFormat.open(path: btsnoop)
            let writer = try CaptureWriter(path: path, format: format, monitor: false)
            while let item = try reader.next() { if case .record(let r) = item { writer.write(r) } }
            writer.flush()
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            // pcap: a 16-byte record header after the 24-byte file header, and one byte of its packet.
            if format == .pcap { bytes += bytes[24..<24 + 16 + 1] }
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            for signal in Self.signals {
                checkStop(
                    try Running(["follow", path, "--color", "never"]), signal, cutInside: format == .pcap ? 59 : nil)
            }
        }
    }

    /// Only a missing file is waited for: one that cannot be read exits 1 at once, saying what
    /// `timeline` says. As root, "permission denied" is had by running btlens as nobody (setpriv).
    func testAFileThatCannotBeReadIsReportedNotWaitedFor() throws {
        let dir = NSTemporaryDirectory() + "follow-unreadable-\(UUID().uuidString)"
        XCTAssertEqual(mkdir(dir, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = dir + "/plain.btsnoop"
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: plain, contents: Data(capture), attributes: [.posixPermissions: 0o000]))
        var cases: [(path: String, user: [String], reason: String)] = [
            (plain + "/capture.btsnoop", [], "Not a directory"),
            (dir, [], "a folder, not a file"),
        ]
        let setpriv = "/usr/bin/setpriv"
        if geteuid() != 0 {
            cases.append((plain, [], "permission denied"))
        } else if FileManager.default.isExecutableFile(atPath: setpriv) {
            cases.append((plain, [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"], "permission denied"))
        }
        for c in cases {
            let said = "btlens: cannot open \(c.path): \(c.reason)\n"
            // A timeline of a folder is a usage error of its own (CLIHabitsTests).
            if c.path != dir {
                let timeline = try Running(["timeline", c.path], as: c.user)
                XCTAssertEqual(timeline.exit(within: 30), 1)
                XCTAssertEqual(timeline.stderr, said)
            }
            let follow = try Running(["follow", c.path], as: c.user)
            XCTAssertEqual(follow.exit(within: Self.stopDeadline), 1, "\(c.reason): exits 1 at once\n\(follow.stderr)")
            XCTAssertEqual(follow.stderr, said, c.reason)
        }
    }
}
