#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Set from a signal handler (SIGINT, SIGTERM) or a test: every follow source ends its input at
/// the next read, so the pipeline finishes cleanly and reports what is left in its buffers.
public final class StopFlag: @unchecked Sendable {
    private let pointer = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)

    public init() { pointer.pointee = 0 }
    deinit { pointer.deallocate() }

    public var isSet: Bool { pointer.pointee != 0 }
    public func set() { pointer.pointee = 1 }
}

/// Bytes that keep coming: a file being written (polled, like `tail -f`), or a pipe, stdin or
/// socket (blocking reads). A read returns as soon as any bytes are there, so a reader above it
/// decodes each record once its last byte is written, and never sees the end of input until
/// the stream really ends (end of a pipe or socket, or the stop flag).
public final class FollowSource: ByteSource {
    /// Why a followed file stopped being the file that is followed.
    public enum Change: Equatable, Sendable {
        /// It shrank below what was read (rewritten in place).
        case truncated
        /// Its name now points to another file (Android rotates btsnoop_hci.log to .last).
        case replaced
    }

    /// How often a file that has not grown is looked at again.
    public static let pollInterval: useconds_t = 20_000

    private let fd: Int32
    private let path: String?
    private let ownsDescriptor: Bool
    private let stop: StopFlag
    private var position: Int64 = 0
    public private(set) var change: Change?

    /// Follows the file at `path`: at its end, waits for it to grow.
    public init(path: String, stop: StopFlag) throws(CaptureOpenError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CaptureOpenError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        self.fd = fd
        self.path = path
        ownsDescriptor = true
        self.stop = stop
    }

    /// Reads a pipe, stdin or socket until it ends.
    public init(descriptor: Int32, stop: StopFlag, owned: Bool = false) {
        fd = descriptor
        path = nil
        ownsDescriptor = owned
        self.stop = stop
    }

    deinit { if ownsDescriptor { close(fd) } }

    public func read(maxCount: Int) throws(CaptureOpenError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(maxCount, 1))
        while !stop.isSet {
            // A pipe or socket is waited on in short slices, so the stop flag is seen whichever thread a signal reached.
            if path == nil {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 50) == 0 { continue }
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, maxCount) }
            if n > 0 {
                position += Int64(n)
                buffer.removeLast(buffer.count - n)
                return buffer
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw CaptureOpenError.cannotOpen(path: path ?? "input", reason: String(cString: strerror(errno)))
            }
            // End of what is there: a pipe or socket has ended; a file may still grow, or have been
            // replaced, in which case what was written to it before is read first (the loop goes round once more).
            guard let path, change == nil else { return [] }
            change = Self.change(fd: fd, path: path, position: position)
            if change == nil { usleep(Self.pollInterval) }
        }
        return []
    }

    /// Compares the open file with what its name points to now.
    static func change(fd: Int32, path: String, position: Int64) -> Change? {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0 else { return .replaced }
        if stat(path, &named) != 0 || named.st_ino != open.st_ino || named.st_dev != open.st_dev { return .replaced }
        return Int64(open.st_size) < position ? .truncated : nil
    }
}
