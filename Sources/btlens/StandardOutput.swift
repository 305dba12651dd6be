// stdio's `stdout` is a C global, which only the main thread's `print` and `flush` use.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Standard output as the CLI ends with it: a write that failed is an error (exit 1, said on
/// stderr), but for a reader that closed the pipe early (`| head`), which ends btlens quietly.
enum StandardOutput {
    /// SIGPIPE is ignored, so a closed pipe is a write's EPIPE, ended here as quietly as the signal
    /// would have, but with status 0: `set -o pipefail; btlens … | head` is no failure.
    static func start() { signal(SIGPIPE, SIG_IGN) }

    /// For an `OutputSink` on fd 1: ends the process at the first failed write, without reading the
    /// rest of a capture nobody will see. `_exit`, as the decoding threads are still running.
    static func failed(_ code: Int32) -> Never {
        if code == EPIPE { _exit(0) }
        FileHandleStderr.write("btlens: cannot write to standard output: \(String(cString: strerror(code)))\n")
        _exit(1)
    }

    /// What `print` left in stdio's buffer, written; a write that failed on the way is said now.
    static func flush() {
        // stdio keeps that a write failed, not why: the errno the failed write left is kept too.
        let before = errno
        let flushed = fflush(stdout)
        let code = errno
        guard flushed != 0 || ferror(stdout) != 0 else { return }
        failed(flushed != 0 ? code : readerGone() ? EPIPE : before != 0 ? before : EIO)
    }

    /// Whether the pipe on fd 1 lost its reader: stdio keeps that a write failed, not why.
    private static func readerGone() -> Bool {
        var p = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
        return poll(&p, 1, 0) == 1 && p.revents & Int16(POLLERR) != 0
    }
}
