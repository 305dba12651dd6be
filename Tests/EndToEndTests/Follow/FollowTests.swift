import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens follow`: a capture written in random pieces (records split anywhere) while it is
/// followed gives every event once, in order, exactly as reading the finished file does: from a
/// growing file, a pipe, and a loopback TCP socket; and a followed file that is truncated or
/// replaced is said and followed anew.
final class FollowTests: XCTestCase {
    /// State shared with the writer thread.
    final class Shared: @unchecked Sendable {
        let lock = NSLock()
        private var _records = 0
        var records: Int {
            lock.lock()
            defer { lock.unlock() }
            return _records
        }
        func add() {
            lock.lock()
            _records += 1
            lock.unlock()
        }
    }

    let capture = SampleCaptures.session().bytes

    func jsonl(_ events: [Event]) -> String {
        let r = JSONLRenderer()
        return events.compactMap { r.render($0) }.map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    func expected(_ bytes: [UInt8]) throws -> String { try jsonl(analyze(bytes)) }

    func pieces(_ bytes: [UInt8], seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix(seed: seed)
        var out: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            let n = Int(rng.next() % 97) + 1
            out.append(Array(bytes[i..<min(bytes.count, i + n)]))
            i += n
        }
        return out
    }

    /// Runs the follower; `writer` runs on its own thread with the stop flag and the records seen so far.
    func follow(
        _ input: Follower.Input, keep: String? = nil,
        writer: @escaping @Sendable (StopFlag, Shared) -> Void
    ) throws -> (events: [Event], notes: [String]) {
        let stop = StopFlag()
        let shared = Shared()
        var events: [Event] = []
        var notes: [String] = []
        let follower = Follower(input, stop: stop, keep: keep.map { ($0, .btsnoop) })
        follower.onRecord = { _ in shared.add() }
        follower.onEvent = { events.append($0) }
        follower.onNote = { notes.append($0) }
        follower.onRestart = { notes.append("restart: \($0)") }
        let done = expectation(description: "writer")
        Thread.detachNewThread {
            writer(stop, shared)
            done.fulfill()
        }
        try follower.run()
        wait(for: [done], timeout: 30)
        return (events, notes)
    }

    static func waitFor(_ shared: Shared, _ count: Int) {
        for _ in 0..<2000 where shared.records < count { usleep(5_000) }
    }

    /// Follows a file while `bytes` are appended to it in random pieces; the events, once all
    /// `records` have been seen.
    func followGrowing(_ bytes: [UInt8], records: Int, suffix: String, seed: UInt64) throws -> [Event] {
        let path = NSTemporaryDirectory() + "follow-\(UUID().uuidString).\(suffix)"
        defer { unlink(path) }
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let parts = pieces(bytes, seed: seed)
        return try follow(.file(path)) { stop, shared in
            let fd = OS.open(path, O_WRONLY | O_APPEND)
            for p in parts {
                _ = p.withUnsafeBytes { OS.write(fd, $0.baseAddress, $0.count) }
                usleep(300)
            }
            OS.close(fd)
            FollowTests.waitFor(shared, records)
            stop.set()
        }.events
    }

    func testAGrowingFileWrittenInRandomPieces() throws {
        XCTAssertEqual(
            jsonl(try followGrowing(capture, records: 58, suffix: "btsnoop", seed: 7)), try expected(capture))
    }

    /// A real PacketLogger capture (../shared; skipped without it).
    func testAGrowingPacketLoggerFile() throws {
        let source = RealCaptureConformanceTests.shared.appendingPathComponent("isap_hci_dump.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: source), "../shared/captures is absent")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        XCTAssertEqual(
            jsonl(try followGrowing(bytes, records: 161, suffix: "pklg", seed: 19)), try jsonl(analyze(bytes)))
    }

    /// pcap goes to libpcap through a pipe fed as the file grows.
    func testAGrowingPcapFile() throws {
        let btsnoop = NSTemporaryDirectory() + "src-\(UUID().uuidString).btsnoop"
        let pcap = NSTemporaryDirectory() + "src-\(UUID().uuidString).pcap"
        defer {
            unlink(btsnoop)
            unlink(pcap)
        }
        _ = FileManager.default.createFile(atPath: btsnoop, contents: Data(capture))
        var reader = try CaptureFormat.open(path: btsnoop)
        let converter = try CaptureWriter(path: pcap, format: .pcap, monitor: false)
        while let item = try reader.next() { if case .record(let r) = item { converter.write(r) } }
        converter.flush()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pcap)))
        XCTAssertEqual(
            jsonl(try followGrowing(bytes, records: 58, suffix: "pcap", seed: 17)), try jsonl(analyze(bytes)))
    }

    /// A stream on a pipe, kept with --write: the file kept holds every record, and reads back to the same events.
    func testAStreamOnAPipeKeptWithWrite() throws {
        let (readEnd, writeEnd) = try XCTUnwrap(OS.pipe())
        let parts = pieces(capture, seed: 11)
        let kept = NSTemporaryDirectory() + "kept-\(UUID().uuidString).btsnoop"
        defer { unlink(kept) }
        let (events, _) = try follow(.descriptor(readEnd), keep: kept) { _, _ in
            for p in parts { _ = p.withUnsafeBytes { OS.write(writeEnd, $0.baseAddress, $0.count) } }
            OS.close(writeEnd)
        }
        OS.close(readEnd)
        XCTAssertEqual(jsonl(events), try expected(capture))
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kept)))
        XCTAssertEqual(try jsonl(analyze(written)), try expected(capture))
    }

    func testALoopbackTCPStreamWithAReconnection() throws {
        let (server, port) = try XCTUnwrap(OS.listenOnLoopback())
        let parts = pieces(capture, seed: 13)
        // Two connections, as a phone's btsnoop_net after the peer went away and came back.
        let (events, notes) = try follow(.connect(host: "127.0.0.1", port: port)) { stop, shared in
            for round in 1...2 {
                let client = OS.accept(server)
                for p in parts { _ = p.withUnsafeBytes { OS.write(client, $0.baseAddress, $0.count) } }
                OS.close(client)
                FollowTests.waitFor(shared, 58 * round)
            }
            OS.close(server)
            stop.set()
        }
        let once = try expected(capture)
        XCTAssertEqual(jsonl(events), once + once)
        XCTAssertEqual(
            Array(notes.prefix(3)),
            [
                "connected to 127.0.0.1:\(port)", "127.0.0.1:\(port) closed the connection; reconnecting",
                "connected to 127.0.0.1:\(port)",
            ])
        XCTAssertEqual(
            notes.filter { $0.hasPrefix("restart: ") },
            ["restart: 127.0.0.1:\(port) closed the connection: following the next one"])
    }

    func testAFileReplacedOrTruncatedIsFollowedAnew() throws {
        let path = NSTemporaryDirectory() + "follow-\(UUID().uuidString).btsnoop"
        defer {
            unlink(path)
            unlink(path + ".last")
        }
        let other = SampleCaptures.faults().bytes
        let first = capture
        _ = FileManager.default.createFile(atPath: path, contents: Data(capture))
        let (events, notes) = try follow(.file(path)) { stop, shared in
            FollowTests.waitFor(shared, 58)
            // Android's rotation: the log becomes .last, a new log starts.
            rename(path, path + ".last")
            usleep(50_000)
            _ = FileManager.default.createFile(atPath: path, contents: Data(other))
            FollowTests.waitFor(shared, 58 + 25)
            // Rewritten in place from the start.
            truncate(path, 0)
            usleep(50_000)
            let fd = OS.open(path, O_WRONLY)
            _ = first.withUnsafeBytes { OS.write(fd, $0.baseAddress, $0.count) }
            OS.close(fd)
            FollowTests.waitFor(shared, 58 + 25 + 58)
            stop.set()
        }
        XCTAssertEqual(jsonl(events), try expected(capture) + expected(other) + expected(capture))
        XCTAssertEqual(
            notes.filter { !$0.hasPrefix("waiting") },
            [
                "\(path) was replaced: following the new file",
                "restart: \(path) was replaced: following the new file",
                "\(path) was truncated: following it from the start",
                "restart: \(path) was truncated: following it from the start",
            ])
    }
}
