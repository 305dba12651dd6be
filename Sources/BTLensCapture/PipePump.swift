import BTLensCore
import CCountingFile
import Foundation
import Synchronization

/// Hands a live pcap or pcapng stream to libpcap, which reads from a `FILE`: a thread copies the
/// stream into a pipe as it arrives, and libpcap reads the other end, blocking until a record is
/// whole. A stop closes the pipe; the reader then knows that the end it sees is the stop's.
final class PipePump: Sendable {
    private let fd: Int32
    private let endedByStop = Atomic<Bool>(false)

    private init(fd: Int32) { self.fd = fd }

    static func open(_ input: ChunkedInput, format: String) throws(CaptureOpenError) -> any CaptureReader {
        // libpcap's ftell gives each record's offset: on a plain pipe it is -1.
        guard let fds = OS.pipe(), let file = btlens_counting_fdopen(fds.read) else {
            throw .unsupported(
                format: format, detail: "cannot make a pipe for libpcap: \(OS.describe(OS.errno))")
        }
        // A reader that stops early closes its end: the pump then sees EPIPE, not a fatal SIGPIPE.
        OS.ignore(SIGPIPE)
        let pump = PipePump(fd: fds.write)
        // The input belongs to the pump's thread alone from here on.
        nonisolated(unsafe) let input = input
        Thread.detachNewThread { pump.run(input) }
        do {
            let reader = try PcapReader(file: file, format: format)
            reader.streamStopped = { pump.stopped }
            return reader
        } catch {
            // Stopped before libpcap had the whole file header: nothing is wrong with the stream.
            throw pump.stopped ? .stopped : error
        }
    }

    /// Whether the stream ended because following was stopped: set before the pipe is closed, so
    /// it is known by the time libpcap sees the end.
    var stopped: Bool { endedByStop.load(ordering: .acquiring) }

    private func run(_ input: ChunkedInput) {
        var input = input
        defer { OS.close(fd) }
        while true {
            let n = input.available
            if n > 0 {
                let bytes = Array(input.take(n))
                guard write(bytes) else { return }
            }
            do {
                guard try input.ensure(1) else { return }
            } catch .stopped {
                endedByStop.store(true, ordering: .releasing)
                return
            } catch {
                return
            }
        }
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { OS.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && OS.errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
