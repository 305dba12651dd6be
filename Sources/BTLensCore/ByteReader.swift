/// A read that wanted more bytes than were left.
public struct ShortRead: Error, Equatable, Sendable {
    /// Offset, from the start of the reader's bytes, where the read began.
    public var offset: Int
    public var needed: Int
    public var available: Int

    @inlinable public init(offset: Int, needed: Int, available: Int) {
        self.offset = offset
        self.needed = needed
        self.available = available
    }
}

/// The one checked cursor every parser reads wire bytes through.
///
/// It never traps: a read past the end throws `ShortRead` naming the offset, and the
/// caller turns that into a diagnostic. Offsets are relative to the first byte given.
/// Inlinable: every layer reads its headers through it, a few fields a packet.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    @usableFromInline var position = 0

    @inlinable public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    @inlinable public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// Bytes read so far.
    @inlinable public var offset: Int { position }

    @inlinable public var remaining: Int { bytes.count - position }
    @inlinable public var isAtEnd: Bool { position >= bytes.count }

    @inlinable func check(_ count: Int) throws(ShortRead) {
        guard count >= 0, count <= remaining else {
            throw ShortRead(offset: position, needed: count, available: max(remaining, 0))
        }
    }

    /// The byte `index` bytes ahead of the cursor, without moving it.
    @inlinable public func peek(_ index: Int = 0) -> UInt8? {
        guard index >= 0, index < remaining else { return nil }
        return bytes[bytes.startIndex + position + index]
    }

    @inlinable public mutating func u8() throws(ShortRead) -> UInt8 {
        try check(1)
        defer { position += 1 }
        return bytes[bytes.startIndex + position]
    }

    @inlinable public mutating func u16le() throws(ShortRead) -> UInt16 { UInt16(littleEndian: try load()) }
    @inlinable public mutating func u16be() throws(ShortRead) -> UInt16 { UInt16(bigEndian: try load()) }

    @inlinable public mutating func u24le() throws(ShortRead) -> UInt32 {
        try check(3)
        let b = bytes.startIndex + position
        position += 3
        return UInt32(bytes[b]) | UInt32(bytes[b + 1]) << 8 | UInt32(bytes[b + 2]) << 16
    }

    @inlinable public mutating func u32le() throws(ShortRead) -> UInt32 { UInt32(littleEndian: try load()) }
    @inlinable public mutating func u32be() throws(ShortRead) -> UInt32 { UInt32(bigEndian: try load()) }
    @inlinable public mutating func u64be() throws(ShortRead) -> UInt64 { UInt64(bigEndian: try load()) }
    @inlinable public mutating func u64le() throws(ShortRead) -> UInt64 { UInt64(littleEndian: try load()) }

    /// The next bytes as an integer in memory order, after one bounds check.
    @inlinable mutating func load<T: FixedWidthInteger>() throws(ShortRead) -> T {
        try check(MemoryLayout<T>.size)
        let at = position
        position += MemoryLayout<T>.size
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: T.self) }
    }

    @inlinable public mutating func i8() throws(ShortRead) -> Int8 { Int8(bitPattern: try u8()) }

    /// The next `count` bytes, sharing storage with the reader's bytes.
    @inlinable public mutating func bytes(_ count: Int) throws(ShortRead) -> ArraySlice<UInt8> {
        try check(count)
        let b = bytes.startIndex + position
        position += count
        return bytes[b..<b + count]
    }

    @inlinable public mutating func skip(_ count: Int) throws(ShortRead) {
        try check(count)
        position += count
    }

    /// The little-endian UInt16 `offset` bytes into `bytes`, read where it lies: no reader is made,
    /// so no reference to the bytes is counted (a header read before the rest is sliced off).
    /// nil past the end.
    @inlinable public static func u16le(in bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16? {
        let span = bytes.span
        guard offset >= 0, offset <= span.count - 2 else { return nil }
        return UInt16(span[offset]) | UInt16(span[offset + 1]) << 8
    }

    /// Where what is left lies in `bytes`: the indices of `rest()`, without making the slice.
    @inlinable public var remainingIndices: Range<Int> {
        bytes.startIndex + min(position, bytes.count)..<bytes.endIndex
    }

    /// Everything left; the reader is at its end afterwards.
    @inlinable public mutating func rest() -> ArraySlice<UInt8> {
        let b = bytes.startIndex + min(position, bytes.count)
        position = bytes.count
        return bytes[b...]
    }
}
