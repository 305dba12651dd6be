import BTLensAppLog
import Foundation
import XCTest

@testable import BTLensPipeline

/// A log read on its own thread gives what the same log read on the caller's gives: every line,
/// across batches (of lines and of bytes), with the problems of each before it, and the end.
final class AppLogPrefetchTests: XCTestCase {
    private func read(_ path: String, onAThread: Bool) throws -> (lines: [String], problems: [Int: [String]]) {
        let source = try AppLogSource(path: path, format: nil, keep: { _ in true })
        source.reference = 1_700_000_000_000_000
        if onAThread { source.readOnAThread() }
        var lines: [String] = []
        while let l = try source.next() {
            lines.append("\(l.line.number) \(l.rawTime ?? -1) \(l.runs.map(\.bytes)) \(l.line.message.utf8.count)")
        }
        XCTAssertNil(try source.next(), "the end stays the end")
        return (lines, source.problems.mapValues { $0.map(\.id) })
    }

    func testOnAThreadIsTheSameRead() throws {
        var log = ""
        for i in 0..<3_000 {
            log +=
                "11-14 23:13:\(String(format: "%02d", i % 60)).\(String(format: "%03d", i % 1000))  4321  4390 D BLE: TX \(String(format: "%02x %02x %02x", i & 0xff, i >> 8, 0xa5))\n"
            // Lines past 64 KiB (cut, and said), and batches cut by their bytes, not their lines.
            if i % 700 == 3 {
                log += "11-14 23:13:20.000  4321  4390 D BLE: " + String(repeating: "x", count: 70_000) + "\n"
            }
            if i % 500 == 7 {
                log += "11-14 23:13:20.000  4321  4390 D BLE: " + String(repeating: "y", count: 60_000) + "\n"
            }
        }
        let path = NSTemporaryDirectory() + "btlens-prefetch-\(UUID().uuidString).log"
        try Data(log.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let alone = try read(path, onAThread: false)
        let threaded = try read(path, onAThread: true)
        XCTAssertEqual(alone.lines.count, 3_000 + 5 + 6)
        XCTAssertEqual(threaded.lines, alone.lines)
        XCTAssertEqual(threaded.problems, alone.problems)
        XCTAssertEqual(alone.problems.values.flatMap { $0 }, Array(repeating: "applog.line.long", count: 5))
    }

    /// Stopped before the end: the thread ends instead of waiting for room.
    func testStoppingEndsTheThread() throws {
        let path = NSTemporaryDirectory() + "btlens-prefetch-\(UUID().uuidString).log"
        try Data(String(repeating: "11-14 23:13:20.000  4321  4390 D BLE: hello\n", count: 20_000).utf8).write(
            to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        weak var gone: AppLogSource?
        do {
            let source = try AppLogSource(path: path, format: nil, keep: { _ in true })
            source.readOnAThread()
            XCTAssertNotNil(try source.next())
            source.stopReading()
            gone = source
        }
        // The thread lets go of the source once it sees the stop.
        for _ in 0..<200 where gone != nil { usleep(10_000) }
        XCTAssertNil(gone)
    }

    /// Stopped with batches waiting, the prefetch and its thread let go of everything: the waiting
    /// batches' room goes with them without a trap (libdispatch's, for a semaphore freed below the
    /// value it was made with).
    func testAStopWithBatchesWaitingFreesTheThreadsState() {
        final class Token {}
        weak var gone: Token?
        do {
            let token = Token()
            gone = token
            var number = 0
            let prefetch = AppLogPrefetch {
                withExtendedLifetime(token) {}
                number += 1
                let line = AppLogLine(number: number, time: nil, message: "line \(number)", text: "line \(number)")
                return (AppLogReadLine(line: line, rawTime: nil, runs: []), [])
            }
            XCTAssertEqual(try prefetch.next { _, _ in }?.line.number, 1)
            // Let the thread fill every batch it may before the stop.
            usleep(200_000)
            prefetch.stop()
        }
        for _ in 0..<300 where gone != nil { usleep(10_000) }
        XCTAssertNil(gone, "the thread let go of what it read with")
        usleep(50_000)
    }
}
