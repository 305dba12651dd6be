#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a capture stream (Android's btsnoop_net on port 8872, through `adb forward`).
public enum TCPConnection {
    /// A connected socket, or why there is none; `.stopped` when `stop` is set while connecting.
    /// The socket is non-blocking: it is read once poll says it has bytes.
    public static func connect(host: String, port: UInt16, stop: StopFlag) throws(CaptureOpenError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw .cannotOpen(path: "\(host):\(port)", reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(result) }
        var lastError = ECONNREFUSED
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            let fd = socket(
                n.pointee.ai_family, n.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
                n.pointee.ai_protocol)
            if fd >= 0 {
                // Connecting in the background, so a host that never answers does not outlast a stop.
                if Glibc.connect(fd, n.pointee.ai_addr, n.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                if lastError == EINPROGRESS {
                    guard stop.wait(for: fd, Int16(POLLOUT)) else {
                        close(fd)
                        throw .stopped
                    }
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 { return fd }
                    lastError = error
                }
                close(fd)
            }
            node = n.pointee.ai_next
        }
        throw .cannotOpen(path: "\(host):\(port)", reason: String(cString: strerror(lastError)))
    }
}
