// The operating system's calls, for Linux (Glibc) and macOS (Darwin). This is the only file that
// names either: Foundation brings in the platform's C library, and the branches below are where
// the two differ (socket types, sigaction's handler, ioctl's request type, the heap's counters).
import CHeapUsage
@preconcurrency import Foundation

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

// The calls whose names are also their structs' names, which a qualified name cannot tell apart.
private func statPath(_ path: String, _ st: inout stat) -> Int32 { stat(path, &st) }
private func linkStatPath(_ path: String, _ st: inout stat) -> Int32 { lstat(path, &st) }
private func setAction(_ signal: Int32, _ action: inout sigaction) { sigaction(signal, &action, nil) }
private func lockFile(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

/// Thin wrappers with POSIX's names and results (-1 and `errno` on failure), so a call site reads
/// as the manual page it follows.
public enum OS {
    public static var errno: Int32 { Foundation.errno }

    /// The C library's text for an `errno` value.
    public static func describe(_ code: Int32) -> String { String(cString: Foundation.strerror(code)) }

    // MARK: File descriptors

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        Foundation.open(path, flags, mode)
    }
    @discardableResult public static func close(_ fd: Int32) -> Int32 { Foundation.close(fd) }
    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Foundation.read(fd, buffer, count)
    }
    public static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int {
        Foundation.pread(fd, buffer, count, offset)
    }
    public static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        Foundation.write(fd, bytes, count)
    }
    @discardableResult public static func lseek(_ fd: Int32, _ offset: off_t, _ whence: Int32) -> off_t {
        Foundation.lseek(fd, offset, whence)
    }
    public static func dup(_ fd: Int32) -> Int32 { Foundation.dup(fd) }

    /// Standard input, output and error, when started closed (`>&-`), are held by /dev/null opened
    /// the other way: no file btlens opens takes their numbers (a capture read as fd 1, a report
    /// written to by `print`), and a read or write on them fails with EBADF, as on a closed one.
    public static func holdClosedStandardDescriptors() {
        for fd: Int32 in 0...2 where Foundation.fcntl(fd, F_GETFD) == -1 {
            let held = Foundation.open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY)
            if held >= 0 && held != fd {
                Foundation.dup2(held, fd)
                Foundation.close(held)
            }
        }
    }

    /// For a `path` that names nothing a file's status reaches: why, when it is a symbolic link (one
    /// that dangles, or a loop of them); nil when nothing has that name.
    public static func brokenLink(_ path: String) -> String? {
        let code = status(path: path) == nil ? errno : ENOENT
        guard linkStatus(path: path) != nil else { return nil }
        return openFailure(path, code)
    }

    /// Why `path` could not be opened, from the `errno` its open left: the target of a dangling
    /// symbolic link, a loop of links, a folder where a file was expected.
    public static func openFailure(_ path: String, _ code: Int32) -> String {
        switch code {
        case ENOENT:
            guard let link = linkStatus(path: path), link.st_mode & S_IFMT == S_IFLNK else { break }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return "a dangling symbolic link to \(target)"
        case ELOOP: return "too many levels of symbolic links (a loop?)"
        case EACCES: return "permission denied"
        case EISDIR: return "a folder, not a file"
        default: break
        }
        return describe(code)
    }
    @discardableResult public static func unlink(_ path: String) -> Int32 { Foundation.unlink(path) }
    public static func rename(_ from: String, _ to: String) -> Int32 { Foundation.rename(from, to) }
    /// An exclusive `flock` on `fd`, without waiting: -1 and `EWOULDBLOCK` when another holds it.
    public static func lockExclusively(_ fd: Int32) -> Int32 { lockFile(fd, LOCK_EX | LOCK_NB) }
    public static func mkstemp(_ template: inout [CChar]) -> Int32 { Foundation.mkstemp(&template) }
    public static func isatty(_ fd: Int32) -> Bool { Foundation.isatty(fd) != 0 }

    /// A pipe whose ends a program btlens starts does not inherit; `nonBlockingWrite` for one a
    /// signal handler writes to. Nil when none can be made (`errno` says why).
    public static func pipe(nonBlockingWrite: Bool = false) -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard Foundation.pipe(&fds) == 0 else { return nil }
        if nonBlockingWrite { _ = Foundation.fcntl(fds[1], F_SETFL, O_NONBLOCK) }
        for fd in fds { _ = Foundation.fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// The file's status (`fstat`), or nil.
    public static func status(_ fd: Int32) -> stat? {
        var st = stat()
        return Foundation.fstat(fd, &st) == 0 ? st : nil
    }
    /// The named file's status (`stat`), or nil.
    public static func status(path: String) -> stat? {
        var st = stat()
        return statPath(path, &st) == 0 ? st : nil
    }

    /// The file's modification time in nanoseconds since 1970 (Linux' `st_mtim`, macOS' `st_mtimespec`).
    public static func modifiedNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        let t = st.st_mtimespec
        #else
        let t = st.st_mtim
        #endif
        return Int64(t.tv_sec) &* 1_000_000_000 &+ Int64(t.tv_nsec)
    }

    /// The named file's own status (`lstat`: a link's, not its target's), or nil.
    public static func linkStatus(path: String) -> stat? {
        var st = stat()
        return linkStatPath(path, &st) == 0 ? st : nil
    }

    /// The size of `fd` when it is a regular file; nil for a pipe, a terminal or a socket.
    public static func regularFileSize(_ fd: Int32) -> Int64? {
        guard let st = status(fd), st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    public static func poll(_ fds: inout [pollfd], _ timeout: Int32) -> Int32 {
        Foundation.poll(&fds, nfds_t(fds.count), timeout)
    }

    /// The terminal's width in columns (TIOCGWINSZ), or nil.
    public static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        #if canImport(Glibc)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        return Foundation.ioctl(fd, request, &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : nil
    }

    // MARK: stdio, for libpcap's FILEs and whole small files

    public static func fopen(_ path: String, _ mode: String) -> UnsafeMutablePointer<FILE>? {
        Foundation.fopen(path, mode)
    }
    public static func fdopen(_ fd: Int32, _ mode: String) -> UnsafeMutablePointer<FILE>? {
        Foundation.fdopen(fd, mode)
    }
    public static func fmemopen(_ bytes: UnsafeMutableRawPointer?, _ count: Int, _ mode: String)
        -> UnsafeMutablePointer<FILE>?
    {
        Foundation.fmemopen(bytes, count, mode)
    }
    @discardableResult public static func fclose(_ file: UnsafeMutablePointer<FILE>) -> Int32 {
        Foundation.fclose(file)
    }
    public static func fflush(_ file: UnsafeMutablePointer<FILE>?) -> Int32 { Foundation.fflush(file) }
    public static func ferror(_ file: UnsafeMutablePointer<FILE>) -> Int32 { Foundation.ferror(file) }
    public static func ftell(_ file: UnsafeMutablePointer<FILE>) -> Int { Foundation.ftell(file) }
    public static func fileno(_ file: UnsafeMutablePointer<FILE>) -> Int32 { Foundation.fileno(file) }
    @discardableResult public static func fwrite(_ bytes: UnsafeRawBufferPointer, _ file: UnsafeMutablePointer<FILE>)
        -> Int
    {
        Foundation.fwrite(bytes.baseAddress, 1, bytes.count, file)
    }
    public static func fread(_ buffer: UnsafeMutableRawBufferPointer, _ file: UnsafeMutablePointer<FILE>) -> Int {
        Foundation.fread(buffer.baseAddress, 1, buffer.count, file)
    }
    /// stdio's standard output, which `print` writes to.
    public static var standardOutput: UnsafeMutablePointer<FILE>? { Foundation.stdout }

    // MARK: Processes, time and the heap

    public static func exit(_ status: Int32) -> Never { Foundation.exit(status) }
    /// Ends the process at once, without flushing stdio or running exit handlers: for when other
    /// threads are still running.
    public static func immediateExit(_ status: Int32) -> Never { Foundation._exit(status) }
    @discardableResult public static func kill(_ pid: pid_t, _ signal: Int32) -> Int32 { Foundation.kill(pid, signal) }

    /// Nanoseconds of the monotonic clock, which no change of the wall clock moves.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Sleeps this thread (a producer waiting for its readers).
    public static func sleep(microseconds: UInt32) { _ = Foundation.usleep(microseconds) }

    /// Bytes of heap in use (glibc's mallinfo2; the default zone's on macOS): for memory bounds.
    public static func heapInUse() -> Int { Int(btlens_heap_in_use()) }
    /// Gives memory every thread's heap has free back to the system, where the allocator can.
    public static func heapTrim() { btlens_heap_trim() }
}

// MARK: Signals

extension OS {
    public typealias SignalHandler = @convention(c) (Int32) -> Void

    /// SIG_IGN: a closed pipe becomes a write's EPIPE.
    public static func ignore(_ signal: Int32) { _ = Foundation.signal(signal, SIG_IGN) }

    /// Calls `handler` on each of `signals`. `restart`: interrupted reads restart (SA_RESTART);
    /// `once`: the handler is removed as it runs, so a second signal ends the process (SA_RESETHAND).
    public static func handle(_ signals: [Int32], restart: Bool, once: Bool, _ handler: SignalHandler) {
        for signal in signals {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = handler
            #else
            action.__sigaction_u.__sa_handler = handler
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = (restart ? SA_RESTART : 0) | (once ? Int32(bitPattern: UInt32(SA_RESETHAND)) : 0)
            setAction(signal, &action)
        }
        // A process started from a thread that blocks signals (a test runner's worker, some
        // launchers) inherits that mask: unblocked on this thread, they reach the handler.
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Runs `body` with the signals that end a process (INT, TERM, HUP, QUIT) held back, so that
    /// none can end btlens between two steps that must both happen.
    public static func withEndingSignalsBlocked<T>(_ body: () -> T) -> T {
        var ending = sigset_t()
        var before = sigset_t()
        sigemptyset(&ending)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&ending, s) }
        pthread_sigmask(SIG_BLOCK, &ending, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        return body()
    }
}

// MARK: Sockets

extension OS {
    /// SOCK_STREAM, whose type differs between the two C libraries.
    #if canImport(Glibc)
    static let streamSocket = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamSocket = SOCK_STREAM
    #endif

    /// The addresses of `host`:`port` for a stream connection, or the resolver's reason; free the
    /// list with `free(addresses:)`.
    public static func resolve(host: String, port: UInt16) -> Result<UnsafeMutablePointer<addrinfo>, ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let result else {
            return .failure(ResolveError(text: String(cString: gai_strerror(status))))
        }
        return .success(result)
    }
    public struct ResolveError: Error { public let text: String }
    public static func free(addresses: UnsafeMutablePointer<addrinfo>) { freeaddrinfo(addresses) }

    /// A non-blocking socket for `address`, closed on exec; -1 and `errno` on failure.
    public static func nonBlockingSocket(for address: addrinfo) -> Int32 {
        #if canImport(Glibc)
        let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        return Foundation.socket(address.ai_family, address.ai_socktype | flags, address.ai_protocol)
        #else
        let fd = Foundation.socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard fd >= 0 else { return fd }
        _ = Foundation.fcntl(fd, F_SETFL, O_NONBLOCK)
        _ = Foundation.fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
        #endif
    }
    public static func connect(_ fd: Int32, _ address: addrinfo) -> Int32 {
        Foundation.connect(fd, address.ai_addr, address.ai_addrlen)
    }
    /// The error a non-blocking connect ended with (SO_ERROR); 0 when it connected.
    public static func socketError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error : Foundation.errno
    }

    /// A blocking connection to 127.0.0.1:`port` whose reads give up after `timeout` seconds (the
    /// tests' plain HTTP client).
    public static func connectToLoopback(port: UInt16, timeout: Int) -> Int32? {
        let fd = Foundation.socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return nil }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            Foundation.close(fd)
            return nil
        }
        return fd
    }

    /// A socket listening on 127.0.0.1 at a port the system chose, or nil: for tests that play a
    /// phone's btsnoop_net server.
    public static func listenOnLoopback() -> (fd: Int32, port: UInt16)? {
        let fd = Foundation.socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return nil }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, listen(fd, 1) == 0 else {
            Foundation.close(fd)
            return nil
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
    public static func accept(_ fd: Int32) -> Int32 { Foundation.accept(fd, nil, nil) }
}
