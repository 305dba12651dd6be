import BTLensCore
import Foundation
import XCTest

/// `--app-log` and the capture given as pipes, FIFOs and devices: each input is opened once and
/// read as it comes, a device that never ends is refused, and a log of long lines is held within
/// its bounds in bytes (docs/limits.md). Each run is a separate process with a time and memory limit.
final class AppLogPipeTests: XCTestCase {
    static let captures = AppLogTests.captures
    static let capture = captures + "/ble_app_log.btsnoop"
    static let log = captures + "/ble_app_log.logcat.txt"
    static let memory = 1 << 30

    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("applog-pipes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// The timeline with the sample's log read from its file, the log named `LOG`.
    private func expected(_ arguments: [String] = []) throws -> String {
        let run = try runCLI(["timeline", Self.capture, "--app-log", Self.log] + arguments, timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("= #6"), run.stdout)
        return run.stdout.replacingOccurrences(of: Self.log, with: "LOG")
    }

    /// A FIFO was opened twice (once to see whether it is a bugreport): the second open waited for
    /// a writer that had gone. Its writer is a thread here.
    func testALogFromAFIFOIsReadOnce() throws {
        let fifo = folder.appendingPathComponent("app.log").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.log)))
        OS.ignore(SIGPIPE)
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let fd = OS.open(fifo, O_WRONLY)
            if fd >= 0 {
                _ = bytes.withUnsafeBytes { OS.write(fd, $0.baseAddress, $0.count) }
                OS.close(fd)
            }
            written.signal()
        }
        let run = try runCLI(["timeline", Self.capture, "--app-log", fifo], timeout: 30, memoryLimit: Self.memory)
        // A writer still waiting for a reader is let go.
        let release = OS.open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertEqual(written.wait(timeout: .now() + 5), .success)
        OS.close(release)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout.replacingOccurrences(of: fifo, with: "LOG"), try expected())
    }

    /// `<(cat log)` and a pipe as `/dev/stdin` read 0 lines: their bytes had gone to the first open.
    func testALogFromAPipeIsReadOnce() throws {
        let log = shellQuoted(Self.log)
        let capture = shellQuoted(Self.capture)
        for (script, name) in [
            (#"exec "$BTLENS" timeline \#(capture) --app-log <(cat \#(log))"#, #"/dev/fd/\d+"#),
            (#"exec "$BTLENS" timeline \#(capture) --app-log /dev/stdin < <(cat \#(log))"#, "/dev/stdin"),
        ] {
            let run = try runCLIInBash(script, memoryLimit: Self.memory)
            XCTAssertEqual(run.status, 0, "\(script): \(run.stderr)")
            let named = run.stdout.replacingOccurrences(of: name, with: "LOG", options: .regularExpression)
            XCTAssertEqual(named, try expected(), script)
        }
    }

    /// A custom format's check read the log's head with a second open; a bugreport given as the
    /// capture of `--app-log bugreport` must be a file, as it is read twice.
    func testAPipedLogWithAFormatIsCheckedOnItsFirstBytes() throws {
        let format = #"^(?<time>\d\d-\d\d \d\d:\d\d:\d\d\.\d+) +\d+ +\d+ (?<level>\w) (?<tag>\w+): (?<message>.*)$"#
        let script =
            #"exec "$BTLENS" timeline \#(shellQuoted(Self.capture)) --app-log <(cat \#(shellQuoted(Self.log))) --app-log-format \#(shellQuoted(format))"#
        let run = try runCLIInBash(script, memoryLimit: Self.memory)
        XCTAssertEqual(run.status, 0, run.stderr)
        let named = run.stdout.replacingOccurrences(of: #"/dev/fd/\d+"#, with: "LOG", options: .regularExpression)
        XCTAssertEqual(named, try expected(["--app-log-format", format]))
        let bugreport = try runCLIInBash(
            #"exec "$BTLENS" timeline <(cat \#(shellQuoted(Self.capture))) --app-log bugreport"#,
            memoryLimit: Self.memory)
        XCTAssertEqual(bugreport.status, 2, bugreport.stderr)
        XCTAssertTrue(bugreport.stderr.contains("which must be a file"), bugreport.stderr)
    }

    /// A capture as `<(cat cap)` was opened twice (once to look for a zip) and read as empty.
    func testACaptureFromAPipeIsReadAsAStream() throws {
        for name in ["ble_app_log.btsnoop", "le_sniffer_plain.pcap"] {
            let path = Self.captures + "/" + name
            let file = try runCLI(["timeline", path], timeout: 30)
            XCTAssertEqual(file.status, 0, file.stderr)
            let run = try runCLIInBash(
                #"exec "$BTLENS" timeline <(cat \#(shellQuoted(path)))"#, memoryLimit: Self.memory)
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            XCTAssertEqual(run.stdout, file.stdout, name)
        }
        // What reads the capture twice says so, as for standard input.
        let twice = try runCLIInBash(
            #"exec "$BTLENS" timeline --summary <(cat \#(shellQuoted(Self.capture)))"#, memoryLimit: Self.memory)
        XCTAssertEqual(twice.status, 2, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("reads the capture twice, which a pipe"), twice.stderr)
    }

    /// `/dev/zero` never ends, and its one line never does either: refused, at once; `/dev/null`
    /// is an empty log.
    func testADeviceOrALineThatNeverEndsIsRefused() throws {
        let device = try runCLI(
            ["timeline", Self.capture, "--app-log", "/dev/zero"], timeout: 30, memoryLimit: Self.memory)
        XCTAssertEqual(device.status, 2, device.stderr)
        XCTAssertTrue(
            device.stderr.contains(
                "/dev/zero: a device, not a log file: btlens reads no device but a terminal or /dev/null (give a file, a FIFO or a pipe)"
            ), device.stderr)
        // /dev/null ends at once: an empty log, as an empty file is.
        let empty = folder.appendingPathComponent("empty.log").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let null = try runCLI(
            ["timeline", Self.capture, "--app-log", "/dev/null"], timeout: 30, memoryLimit: Self.memory)
        let file = try runCLI(["timeline", Self.capture, "--app-log", empty], timeout: 30, memoryLimit: Self.memory)
        XCTAssertEqual(null.status, 0, null.stderr)
        XCTAssertEqual(null.stderr, file.stderr)
        XCTAssertEqual(null.stdout, file.stdout.replacingOccurrences(of: empty, with: "/dev/null"))
        let endless = try runCLIInBash(
            #"exec "$BTLENS" timeline \#(shellQuoted(Self.capture)) --app-log <(cat /dev/zero)"#,
            memoryLimit: Self.memory)
        XCTAssertEqual(endless.status, 2, endless.stderr)
        XCTAssertTrue(
            endless.stderr.contains(": line 1 runs past 16 MiB with no line end: not a text log"), endless.stderr)
        XCTAssertEqual(endless.stdout, "")
    }

    /// 24,000 lines of 2 KiB of hex: the lines read ahead to find the offset were bounded by
    /// count alone (20,000 lines, 6 KB each held). glibc's arenas are one here, so that the address
    /// space follows the heap: 177 MB at most with the bound (118 MB for the sample alone), 259 MB
    /// without it, over the limit of 224 MiB.
    func testALogOfLongHexLinesIsHeldWithinItsBytes() throws {
        let path = folder.appendingPathComponent("long.log").path
        var text = try Array(Data(contentsOf: URL(fileURLWithPath: Self.log)))
        let digits = Array("0123456789abcdef".utf8)
        for i in 0..<24_000 {
            // A day after the capture: placed after its end, not among its events.
            let time = String(format: "11-15 23:%02d:%02d.%03d", i / 60_000 % 60, i / 1000 % 60, i % 1000)
            text += Array("\(time)  4321  4390 D Flood: RX notify fff4:".utf8)
            for byte in [i >> 8 & 0xff, i & 0xff] + (2..<682).map({ (i &* 7 &+ $0) & 0xff }) {
                text += [0x20, digits[byte >> 4], digits[byte & 0xf]]
            }
            text.append(0x0a)
        }
        try Data(text).write(to: URL(fileURLWithPath: path))
        let run = try runCLI(
            ["stats", "--format", "json", Self.capture, "--app-log", path], environment: ["MALLOC_ARENA_MAX": "1"],
            timeout: 180, memoryLimit: 224 << 20)
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let log = try XCTUnwrap((json?["app_logs"] as? [[String: Any]])?.first)
        XCTAssertEqual(log["lines"] as? Int, 24_013)
        XCTAssertEqual(log["matched"] as? Int, 10)
        // Found from the lines within 32 MiB, which it says.
        let ahead = try XCTUnwrap(log["read_ahead_lines"] as? Int)
        XCTAssertLessThan(ahead, 20_000)
        XCTAssertGreaterThan(ahead, 1_000)
    }
}
