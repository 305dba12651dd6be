import BTLensAppLog
import BTLensCore
import Foundation

/// A log's lines read and parsed on a thread of their own, in batches, while the merger works on
/// the rendering thread: the log costs the merge little more than the capture.
///
/// Bounded: at most `batches` batches of `batchLines` lines wait, and at most `batchBytes` of
/// their messages each (a line is at most 256 KiB, so a batch holds at least one).
final class AppLogPrefetch: @unchecked Sendable {
    static let batchLines = 512
    static let batchBytes = 1 << 20
    static let batches = 4

    private struct Batch {
        var lines: [AppLogReadLine] = []
        var problems: [(line: Int, diagnostic: Diagnostic)] = []
        /// The read ended here: with nothing more, or with this error.
        var end = false
        var error: (any Error)?
    }

    private let condition = NSCondition()
    private var queue: [Batch] = []
    private var stopped = false
    /// The batch being given out, on the consumer's side.
    private var current = Batch()
    private var index = 0

    /// Starts the thread, which calls `parse` until it gives nil or throws.
    init(_ parse: @escaping () throws -> (AppLogReadLine?, [(line: Int, diagnostic: Diagnostic)])) {
        // Only the thread calls `parse` (and the source's reading state behind it) from now on.
        nonisolated(unsafe) let parse = parse
        let thread = Thread { [self] in produce(parse) }
        thread.name = "btlens app log"
        thread.start()
    }

    private func produce(
        _ parse: () throws -> (AppLogReadLine?, [(line: Int, diagnostic: Diagnostic)])
    ) {
        var ended = false
        while !ended {
            var batch = Batch()
            var bytes = 0
            do {
                while batch.lines.count < Self.batchLines, bytes < Self.batchBytes {
                    let (line, problems) = try parse()
                    batch.problems += problems
                    guard let line else {
                        batch.end = true
                        break
                    }
                    bytes += line.line.message.utf8.count
                    batch.lines.append(line)
                }
            } catch {
                (batch.end, batch.error) = (true, error)
            }
            ended = batch.end
            condition.lock()
            while queue.count >= Self.batches && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            queue.append(batch)
            condition.signal()
            condition.unlock()
        }
    }

    /// The next line, its problems said to `problem` first; nil at the end.
    func next(_ problem: (Int, Diagnostic) -> Void) throws -> AppLogReadLine? {
        while index == current.lines.count {
            if current.end {
                if let error = current.error { throw error }
                return nil
            }
            condition.lock()
            while queue.isEmpty { condition.wait() }
            current = queue.removeFirst()
            condition.signal()
            condition.unlock()
            index = 0
            for (n, d) in current.problems { problem(n, d) }
        }
        index += 1
        return current.lines[index - 1]
    }

    /// The consumer is done early: the thread ends instead of waiting for room.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
