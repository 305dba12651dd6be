#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where rendered bytes go: a file descriptor in large writes, or memory for tests.
public final class OutputSink {
    /// Appended to by one thread, a line at a time: no runtime exclusivity check per write.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let fd: Int32?
    private let flushEachWrite: Bool
    public private(set) var collected: [UInt8] = []

    /// Writes to `fd`, buffered in 64 KiB pieces (or flushed at every line when following live).
    public init(fd: Int32, flushEachWrite: Bool = false) {
        self.fd = fd
        self.flushEachWrite = flushEachWrite
        buffer.reserveCapacity(1 << 16)
    }

    /// Keeps everything in memory (`text`).
    public init() {
        fd = nil
        flushEachWrite = false
    }

    public var text: String { String(decoding: collected, as: UTF8.self) }

    public func write(_ bytes: [UInt8]) {
        guard fd != nil else { collected += bytes; return }
        buffer += bytes
        if flushEachWrite || buffer.count >= 1 << 16 { flush() }
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard fd != nil else { collected.append(contentsOf: bytes); return }
        buffer.append(contentsOf: bytes)
        if flushEachWrite || buffer.count >= 1 << 16 { flush() }
    }

    public func write(_ s: String) { write(Array(s.utf8)) }

    public func flush() {
        guard let fd, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue } else { return } }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
