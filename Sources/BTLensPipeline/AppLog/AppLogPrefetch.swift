import BTLensAppLog
import BTLensCore
import Foundation
import Synchronization

/// A log's lines read and parsed on a thread of their own, in batches, while the merger works on
/// the rendering thread: the log costs the merge little more than the capture.
///
/// Bounded, per log: at most `batches` batches of `batchLines` lines wait, and at most `batchBytes`
/// of those lines each (`AppLogReadLine.heldBytes`; a batch holds at least one line).
final class AppLogPrefetch {
    static let batchLines = 512
    static let batchBytes = 1 << 20
    static let batches = 4

    private struct Batch: Sendable {
        var lines: [AppLogReadLine] = []
        var problems: [(line: Int, diagnostic: Diagnostic)] = []
        /// The read ended here: with nothing more, or with this error.
        var end = false
        var error: (any Error)?
    }

    /// What the two threads share: the batches waiting, counted by two semaphores (room for the
    /// thread to fill, batches for the consumer to take).
    private final class Channel: Sendable {
        let waiting = Mutex<(batches: [Batch], stopped: Bool)>(([], false))
        let room = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)

        /// The room is given after the semaphore is made: libdispatch traps when one is freed below
        /// the value it was made with, as `room` is when a stop leaves batches waiting.
        init() {
            for _ in 0..<AppLogPrefetch.batches { room.signal() }
        }
    }

    private let channel = Channel()
    /// The batch being given out, on the consumer's side.
    private var current = Batch()
    private var index = 0

    /// Starts the thread, which calls `parse` until it gives nil or throws.
    init(_ parse: @escaping () throws -> (AppLogReadLine?, [(line: Int, diagnostic: Diagnostic)])) {
        // Only the thread calls `parse` (and the source's reading state behind it) from now on.
        nonisolated(unsafe) let parse = parse
        let channel = channel
        let thread = Thread { Self.produce(parse, into: channel) }
        thread.name = "btlens app log"
        thread.start()
    }

    private static func produce(
        _ parse: () throws -> (AppLogReadLine?, [(line: Int, diagnostic: Diagnostic)]), into channel: Channel
    ) {
        var ended = false
        while !ended {
            let batch = read(parse)
            ended = batch.end
            channel.room.wait()
            let stopped = channel.waiting.withLock { waiting in
                if !waiting.stopped { waiting.batches.append(batch) }
                return waiting.stopped
            }
            if stopped { return }
            channel.ready.signal()
        }
    }

    /// Up to `batchLines` lines, or `batchBytes` of them, or to the end.
    private static func read(_ parse: () throws -> (AppLogReadLine?, [(line: Int, diagnostic: Diagnostic)])) -> Batch {
        var batch = Batch()
        var bytes = 0
        do {
            while batch.lines.count < batchLines, bytes < batchBytes {
                let (line, problems) = try parse()
                batch.problems += problems
                guard let line else {
                    batch.end = true
                    break
                }
                bytes += line.heldBytes
                batch.lines.append(line)
            }
        } catch {
            (batch.end, batch.error) = (true, error)
        }
        return batch
    }

    /// The next line, its problems said to `problem` first; nil at the end.
    func next(_ problem: (Int, Diagnostic) -> Void) throws -> AppLogReadLine? {
        while index == current.lines.count {
            if current.end {
                if let error = current.error { throw error }
                return nil
            }
            channel.ready.wait()
            current = channel.waiting.withLock { $0.batches.removeFirst() }
            channel.room.signal()
            index = 0
            for (n, d) in current.problems { problem(n, d) }
        }
        index += 1
        return current.lines[index - 1]
    }

    /// The consumer is done early: the thread ends instead of waiting for room.
    func stop() {
        channel.waiting.withLock { $0.stopped = true }
        channel.room.signal()
    }
}
