import BTLensCore
import Foundation

/// Where capture bytes come from: a file, a pipe, memory.
public protocol ByteSource {
    /// Up to `maxCount` bytes; an empty array means end of input.
    mutating func read(maxCount: Int) throws(CaptureOpenError) -> [UInt8]
    /// The total number of bytes, when known before reading (a file, memory); nil for a stream.
    var size: Int64? { get }
    /// Up to `buffer.count` bytes written into `buffer`; 0 means end of input.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureOpenError) -> Int
}

extension ByteSource {
    public var size: Int64? { nil }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureOpenError) -> Int {
        let bytes = try read(maxCount: buffer.count)
        buffer.copyBytes(from: bytes)
        return bytes.count
    }
}

/// Bytes already in memory (tests, decompressed data).
public struct MemorySource: ByteSource {
    private var bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int64? { Int64(bytes.count) }

    public mutating func read(maxCount: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(maxCount, 0))
        defer { position = end }
        return Array(bytes[position..<end])
    }
}

/// A file read with plain `read(2)` in large pieces; never mapped or loaded whole.
public final class FileSource: ByteSource {
    private let fd: Int32
    public let path: String

    public init(path: String) throws(CaptureOpenError) {
        self.path = path
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { throw CaptureOpenError.cannotOpen(path: path, reason: OS.openFailure(path, OS.errno)) }
        self.fd = fd
    }

    /// An open descriptor, read from its offset; `name` is what messages call it. It is closed with this.
    public init(descriptor: Int32, name: String) {
        self.path = name
        self.fd = descriptor
    }

    deinit { OS.close(fd) }

    /// The whole file again as a stdio stream of its own (for libpcap): its name may be gone.
    func rewoundStream() -> UnsafeMutablePointer<FILE>? {
        let copy = OS.dup(fd)
        guard copy >= 0 else { return nil }
        guard OS.lseek(copy, 0, SEEK_SET) == 0, let stream = OS.fdopen(copy, "rb") else {
            OS.close(copy)
            return nil
        }
        return stream
    }

    /// The file's size, for a regular file.
    public var size: Int64? {
        OS.regularFileSize(fd)
    }

    public func read(maxCount: Int) throws(CaptureOpenError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        let n = buffer.withUnsafeMutableBytes { raw in Result { () throws(CaptureOpenError) in try read(into: raw) } }
        buffer.removeLast(maxCount - (try n.get()))
        return buffer
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureOpenError) -> Int {
        while true {
            let n = OS.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if OS.errno != EINTR {
                throw CaptureOpenError.cannotOpen(path: path, reason: OS.openFailure(path, OS.errno))
            }
        }
    }
}

/// A sliding window over a `ByteSource`.
///
/// Slices handed out share storage with the current chunk. A refill builds a new chunk
/// rather than mutating the old one, so slices still held elsewhere never force a copy.
public struct ChunkedInput {
    public static let chunkSize = 1 << 20

    private var source: any ByteSource
    private var chunk: [UInt8] = []
    private var position = 0
    private var chunkStart: Int64 = 0
    public private(set) var reachedEnd = false

    public init(_ source: any ByteSource) { self.source = source }

    /// The source's size, when it is known.
    public var size: Int64? { source.size }

    /// File offset of the next unread byte.
    public var offset: Int64 { chunkStart + Int64(position) }
    public var available: Int { chunk.count - position }

    /// Makes at least `count` bytes available if the input has them; returns whether it does.
    public mutating func ensure(_ count: Int) throws(CaptureOpenError) -> Bool {
        while available < count && !reachedEnd {
            // The unread bytes, then one read straight into the room after them: one allocation and
            // one copy of the file's bytes per chunk.
            let kept = available
            let room = max(Self.chunkSize, count - kept)
            var failure: CaptureOpenError?
            let next = [UInt8](unsafeUninitializedCapacity: kept + room) { buffer, initialized in
                chunk[position...].withUnsafeBufferPointer { old in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[..<kept]).initialize(from: old)
                }
                do throws(CaptureOpenError) {
                    initialized =
                        kept
                        + (try source.read(
                            into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[kept...]))))
                } catch {
                    failure = error
                    initialized = kept
                }
            }
            if let failure { throw failure }
            if next.count == kept {
                reachedEnd = true
                break
            }
            chunkStart += Int64(position)
            chunk = next
            position = 0
        }
        return available >= count
    }

    /// The next `count` bytes without consuming them (at most what is available).
    public func peek(_ count: Int) -> ArraySlice<UInt8> {
        chunk[position..<position + min(count, available)]
    }

    /// The big-endian integer `offset` bytes ahead of the cursor, read in place, or nil when fewer
    /// bytes are available. A record header read this way takes no slice of the chunk: no
    /// reference to count and drop, on every record.
    public func peekBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset <= available - MemoryLayout<T>.size else { return nil }
        return chunk.withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: position + offset, as: T.self)) }
    }

    /// Consumes up to `count` bytes without returning them.
    public mutating func skip(_ count: Int) {
        position += min(max(count, 0), available)
    }

    /// Consumes and returns the next byte, or nil at the end of what is available.
    public mutating func takeByte() -> UInt8? {
        guard available > 0 else { return nil }
        defer { position += 1 }
        return chunk[position]
    }

    /// Consumes and returns up to `count` bytes.
    public mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let n = min(max(count, 0), available)
        defer { position += n }
        return chunk[position..<position + n]
    }
}
