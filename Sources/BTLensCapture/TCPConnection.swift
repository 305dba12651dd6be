import BTLensCore
import Foundation

/// A TCP connection to a capture stream (Android's btsnoop_net on port 8872, through `adb forward`).
public enum TCPConnection {
    /// A connected socket, or why there is none; `.stopped` when `stop` is set while connecting.
    /// The socket is non-blocking: it is read once poll says it has bytes.
    public static func connect(host: String, port: UInt16, stop: StopFlag) throws(CaptureOpenError) -> Int32 {
        let addresses: UnsafeMutablePointer<addrinfo>
        switch OS.resolve(host: host, port: port) {
        case .success(let list): addresses = list
        case .failure(let error): throw .cannotOpen(path: "\(host):\(port)", reason: error.text)
        }
        defer { OS.free(addresses: addresses) }
        var lastError = ECONNREFUSED
        var node: UnsafeMutablePointer<addrinfo>? = addresses
        while let n = node {
            let fd = OS.nonBlockingSocket(for: n.pointee)
            if fd >= 0 {
                // Connecting in the background, so a host that never answers does not outlast a stop.
                if OS.connect(fd, n.pointee) == 0 { return fd }
                lastError = OS.errno
                if lastError == EINPROGRESS {
                    guard stop.wait(for: fd, Int16(POLLOUT)) else {
                        OS.close(fd)
                        throw .stopped
                    }
                    lastError = OS.socketError(fd)
                    if lastError == 0 { return fd }
                }
                OS.close(fd)
            }
            node = n.pointee.ai_next
        }
        throw .cannotOpen(path: "\(host):\(port)", reason: OS.describe(lastError))
    }
}
