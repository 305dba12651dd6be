import Foundation

/// Where rendered bytes go: a file descriptor in large writes, or memory for tests.
///
/// A write that fails (a full disk, a closed pipe) is handed to `onFailure` with its `errno`, once;
/// what comes after it is dropped. The CLI ends there, so a write error is never a silent success.
public final class OutputSink {
    /// Lines wait in raw memory until 64 KiB are there: a line is one copy, with no array append
    /// (scripts/benchmark's JSONL and text timeline figures: a line per event). Safe: `count` never
    /// passes `capacity` (a line that does not fit flushes first; one larger than the buffer is
    /// written past it), and the sink is written by one thread, a line at a time, never re-entered:
    /// `count` is in a cell, without the runtime exclusivity check per write (`pending` is a constant).
    private let pending = UnsafeMutablePointer<UInt8>.allocate(capacity: OutputSink.capacity)
    private let count = SingleOwnerCell(0)
    private static let capacity = 1 << 16
    private let fd: Int32?
    private let flushEachWrite: Bool
    private let onFailure: (Int32) -> Void
    /// The `errno` of the first write that failed.
    public private(set) var failure: Int32?
    public private(set) var collected: [UInt8] = []

    /// Writes to `fd`, buffered in 64 KiB pieces (or flushed at every line when following live).
    public init(fd: Int32, flushEachWrite: Bool = false, onFailure: @escaping (Int32) -> Void = { _ in }) {
        self.fd = fd
        self.flushEachWrite = flushEachWrite
        self.onFailure = onFailure
    }

    /// Keeps everything in memory (`text`).
    public init() {
        fd = nil
        flushEachWrite = false
        onFailure = { _ in }
    }

    public var text: String { String(decoding: collected, as: UTF8.self) }

    public func write(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { write($0) } }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let fd else {
            collected.append(contentsOf: bytes)
            return
        }
        guard failure == nil, let from = bytes.baseAddress else { return }
        if count.value + bytes.count > Self.capacity { flush() }
        if bytes.count > Self.capacity {
            put(fd, UnsafeRawBufferPointer(bytes))
        } else {
            (pending + count.value).update(from: from, count: bytes.count)
            count.value += bytes.count
        }
        if flushEachWrite { flush() }
    }

    public func write(_ s: String) { write(Array(s.utf8)) }

    public func flush() {
        guard let fd, count.value > 0 else { return }
        put(fd, UnsafeRawBufferPointer(start: pending, count: count.value))
        count.value = 0
    }

    private func put(_ fd: Int32, _ raw: UnsafeRawBufferPointer) {
        guard failure == nil, let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let n = OS.write(fd, base + offset, raw.count - offset)
            if n < 0 {
                let code = OS.errno
                if code == EINTR { continue }
                failure = code
                return onFailure(code)
            }
            offset += n
        }
    }

    deinit {
        flush()
        pending.deallocate()
    }
}
