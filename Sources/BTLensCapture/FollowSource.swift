import BTLensCore
import Foundation
import Synchronization

/// Set from a signal handler (SIGINT, SIGTERM) or a test: every follow source stops at once, the
/// pipeline reports what is left in its buffers, and `follow` ends.
///
/// Setting it also makes a pipe readable. Every wait of a follow (for input, a connection, a file
/// to grow or appear) polls that pipe beside what it waits for, so no wait outlasts the stop,
/// whichever thread the signal reached and whether or not a call was interrupted.
public final class StopFlag: @unchecked Sendable {
    /// Atomic: set on one thread (or in a signal handler, where a lock-free store is safe), read on others.
    private let flag = Atomic<Bool>(false)
    private let wake: (read: Int32, write: Int32)

    public init() {
        // Made once, at start: a process that cannot make a pipe then cannot do much else either.
        // A handler never blocks on a full pipe.
        guard let fds = OS.pipe(nonBlockingWrite: true) else {
            preconditionFailure("btlens: no pipe for the stop flag: \(OS.describe(OS.errno))")
        }
        wake = fds
    }

    deinit {
        OS.close(wake.read)
        OS.close(wake.write)
    }

    public var isSet: Bool { flag.load(ordering: .acquiring) }

    /// Called at most every `idleInterval` while a wait on the thread that set it goes on (follow
    /// --app-log places the log's lines by it while the capture is quiet); never on another
    /// thread (the pump that feeds libpcap a stream). Set before following starts.
    public private(set) var idle: (() -> Void)?
    private var idleThread: pthread_t?
    public static let idleInterval: Int32 = 250
    private var lastIdle: UInt64 = 0

    public func setIdle(_ idle: @escaping () -> Void) {
        self.idle = idle
        idleThread = pthread_self()
    }

    /// Calls `idle` when it is due; for waits that are not this flag's (libpcap's read timeout).
    public func tick() {
        guard let idle, let idleThread, pthread_equal(idleThread, pthread_self()) != 0 else { return }
        let ms = OS.monotonicNanoseconds() / 1_000_000
        guard ms &- lastIdle >= UInt64(Self.idleInterval) else { return }
        lastIdle = ms
        idle()
    }

    /// Safe in a signal handler: a store and a write(2). The byte is never read, so the pipe stays
    /// readable for every wait to come.
    public func set() {
        flag.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = OS.write(wake.write, &byte, 1)
    }

    /// Waits until `fd` has `events` or the flag is set; true when `fd` is ready (or failed, which
    /// the next call on it says), false when stopped or after `timeout` milliseconds (-1: none).
    public func wait(for fd: Int32, _ events: Int16 = Int16(POLLIN), timeout: Int32 = -1) -> Bool {
        var fds = [
            pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        var left = timeout
        while !isSet {
            // With an idle hook, no single poll outlasts its interval.
            let slice = idle == nil ? left : left < 0 ? Self.idleInterval : min(left, Self.idleInterval)
            let n = OS.poll(&fds, slice)
            if n < 0 && OS.errno == EINTR { continue }
            if n == 0, idle != nil {
                tick()
                if left >= 0 { left -= slice }
                if left != 0 { continue }
            }
            return n > 0 && fds[0].revents != 0 && !isSet
        }
        return false
    }

    /// Sleeps for `microseconds`, or until the flag is set.
    public func sleep(microseconds: Int) {
        _ = wait(for: -1, timeout: Int32(microseconds / 1000))
    }
}

/// Bytes that keep coming: a file being written (polled, like `tail -f`), or a pipe, FIFO, stdin
/// or socket (waited on). A read returns as soon as any bytes are there, so a reader above it
/// decodes each record once its last byte is written, and never sees the end of input until the
/// stream really ends (end of a pipe or socket). When the stop flag is set a read throws
/// `.stopped`: the reader above ends where it was, without taking the stop for the end of its input.
public final class FollowSource: ByteSource {
    /// Why a followed file stopped being the file that is followed.
    public enum Change: Equatable, Sendable {
        /// It shrank below what was read (rewritten in place).
        case truncated
        /// Its name now points to another file (Android rotates btsnoop_hci.log to .last).
        case replaced
    }

    /// How often a file that has not grown is looked at again.
    public static let pollInterval = 20_000

    private let fd: Int32
    private let path: String?
    /// A regular file, read to its end and then looked at again; anything else is waited on.
    private let isFile: Bool
    private let ownsDescriptor: Bool
    private let stop: StopFlag
    /// Bytes handed to the reader so far: where the stream is, for a stop inside a record.
    public private(set) var position: Int64 = 0
    public private(set) var change: Change?

    /// Follows what `path` names: a file grows, a FIFO or device is read as a stream. Nil when
    /// nothing has that name (yet); any other reason it cannot be read is thrown.
    public init?(path: String, stop: StopFlag) throws(CaptureOpenError) {
        // Non-blocking, so opening a FIFO no writer has opened yet does not wait beyond a stop.
        let fd = OS.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if OS.errno == ENOENT { return nil }
            throw .cannotOpen(path: path, reason: OS.openFailure(path, OS.errno))
        }
        let type = OS.status(fd).map { $0.st_mode & S_IFMT } ?? 0
        guard type != S_IFDIR else {
            OS.close(fd)
            throw .cannotOpen(path: path, reason: OS.openFailure(path, EISDIR))
        }
        self.fd = fd
        self.path = path
        isFile = type == S_IFREG
        ownsDescriptor = true
        self.stop = stop
    }

    /// Reads a pipe, stdin or socket until it ends.
    public init(descriptor: Int32, stop: StopFlag, owned: Bool = false) {
        fd = descriptor
        path = nil
        isFile = false
        ownsDescriptor = owned
        self.stop = stop
    }

    deinit { if ownsDescriptor { OS.close(fd) } }

    public func read(maxCount: Int) throws(CaptureOpenError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(maxCount, 1))
        while true {
            // A stream is read only once it has bytes (or has ended), so no read blocks past a stop.
            if !isFile && !stop.wait(for: fd) { break }
            if stop.isSet { break }
            let n = buffer.withUnsafeMutableBytes { OS.read(fd, $0.baseAddress, maxCount) }
            if n > 0 {
                position += Int64(n)
                buffer.removeLast(buffer.count - n)
                return buffer
            }
            if n < 0 {
                if OS.errno == EINTR || OS.errno == EAGAIN { continue }
                throw .cannotOpen(path: path ?? "input", reason: OS.describe(OS.errno))
            }
            // End of what is there: a stream has ended; a file may still grow, or have been
            // replaced, in which case what was written to it before is read first (the loop goes round once more).
            guard isFile, let path, change == nil else { return [] }
            change = Self.change(fd: fd, path: path, position: position)
            if change == nil { stop.sleep(microseconds: Self.pollInterval) }
        }
        throw .stopped
    }

    /// Compares the open file with what its name points to now.
    static func change(fd: Int32, path: String, position: Int64) -> Change? {
        guard let open = OS.status(fd) else { return .replaced }
        guard let named = OS.status(path: path), named.st_ino == open.st_ino, named.st_dev == open.st_dev else {
            return .replaced
        }
        return Int64(open.st_size) < position ? .truncated : nil
    }
}

extension CaptureProblem {
    /// Following stopped while record `number` was arriving: said once, as a note, in place of the
    /// record (its part is not decoded) and of the cut a reader would see in a file that ends there.
    public static func stopped(inside number: Int, offset: Int64, arrived: Int64?) -> CaptureProblem {
        var message = "following stopped inside record \(number)"
        var fields: [(String, FieldValue)] = []
        if offset >= 0, let arrived {
            message += " at offset \(offset), after \(arrived) of its bytes had arrived"
            fields.append(("have", .int(arrived)))
        } else {
            message += ", before the whole of it had arrived"
        }
        return CaptureProblem(
            diagnostic: Diagnostic(CaptureDiagnostics.followStopped, message, fields: fields),
            recordNumber: number, fileOffset: offset)
    }
}
