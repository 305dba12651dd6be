import BTLensCore
import Foundation

/// Standard output as the CLI ends with it: a write that failed is an error (exit 1, said on
/// stderr), but for a reader that closed the pipe early (`| head`), which ends btlens quietly.
enum StandardOutput {
    /// SIGPIPE is ignored, so a closed pipe is a write's EPIPE, ended here as quietly as the signal
    /// would have, but with status 0: `set -o pipefail; btlens … | head` is no failure. SIGXFSZ too,
    /// so a file cut by `ulimit -f` is a write's EFBIG, said, instead of a core dump.
    static func start() {
        OS.holdClosedStandardDescriptors()
        OS.ignore(SIGPIPE)
        OS.ignore(SIGXFSZ)
    }

    /// The error a run that could not write `path` ends with (exit 1), `code` its write's `errno`.
    static func cannotWrite(_ path: String, _ code: Int32) -> InputFailure {
        InputFailure(message: "cannot write to \(path): \(OS.describe(code))")
    }

    /// For an `OutputSink` on fd 1: ends the process at the first failed write, without reading the
    /// rest of a capture nobody will see. `_exit`, as the decoding threads are still running.
    static func failed(_ code: Int32) -> Never {
        if code == EPIPE { OS.immediateExit(0) }
        FileHandleStderr.write("btlens: cannot write to standard output: \(OS.describe(code))\n")
        OS.immediateExit(1)
    }

    /// What `print` left in stdio's buffer, written; a write that failed on the way is said now.
    static func flush() {
        // stdio keeps that a write failed, not why: the errno the failed write left is kept too.
        let before = OS.errno
        let flushed = OS.fflush(OS.standardOutput)
        let code = OS.errno
        guard flushed != 0 || OS.standardOutput.map(OS.ferror) != 0 else { return }
        failed(flushed != 0 ? code : readerGone() ? EPIPE : before != 0 ? before : EIO)
    }

    /// Whether the pipe on fd 1 lost its reader: stdio keeps that a write failed, not why.
    private static func readerGone() -> Bool {
        var p = [pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)]
        return OS.poll(&p, 0) == 1 && p[0].revents & Int16(POLLERR) != 0
    }
}
