/// A read that wanted more bytes than were left.
public struct ShortRead: Error, Equatable, Sendable {
    /// Offset, from the start of the reader's bytes, where the read began.
    public var offset: Int
    public var needed: Int
    public var available: Int

    public init(offset: Int, needed: Int, available: Int) {
        self.offset = offset
        self.needed = needed
        self.available = available
    }
}

/// The one checked cursor every parser reads wire bytes through.
///
/// It never traps: a read past the end throws `ShortRead` naming the offset, and the
/// caller turns that into a diagnostic. Offsets are relative to the first byte given.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    public private(set) var offset: Int = 0

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    private func check(_ count: Int) throws(ShortRead) {
        guard count >= 0, count <= remaining else {
            throw ShortRead(offset: offset, needed: count, available: max(remaining, 0))
        }
    }

    /// The byte `index` bytes ahead of the cursor, without moving it.
    public func peek(_ index: Int = 0) -> UInt8? {
        guard index >= 0, index < remaining else { return nil }
        return bytes[bytes.startIndex + offset + index]
    }

    public mutating func u8() throws(ShortRead) -> UInt8 {
        try check(1)
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    public mutating func u16le() throws(ShortRead) -> UInt16 {
        try check(2)
        let b = bytes.startIndex + offset
        offset += 2
        return UInt16(bytes[b]) | UInt16(bytes[b + 1]) << 8
    }

    public mutating func u16be() throws(ShortRead) -> UInt16 {
        try check(2)
        let b = bytes.startIndex + offset
        offset += 2
        return UInt16(bytes[b]) << 8 | UInt16(bytes[b + 1])
    }

    public mutating func u24le() throws(ShortRead) -> UInt32 {
        try check(3)
        let b = bytes.startIndex + offset
        offset += 3
        return UInt32(bytes[b]) | UInt32(bytes[b + 1]) << 8 | UInt32(bytes[b + 2]) << 16
    }

    public mutating func u32le() throws(ShortRead) -> UInt32 {
        try check(4)
        return UInt32(try u16le()) | UInt32(try u16le()) << 16
    }

    public mutating func u32be() throws(ShortRead) -> UInt32 {
        try check(4)
        return UInt32(try u16be()) << 16 | UInt32(try u16be())
    }

    public mutating func u64be() throws(ShortRead) -> UInt64 {
        try check(8)
        return UInt64(try u32be()) << 32 | UInt64(try u32be())
    }

    public mutating func u64le() throws(ShortRead) -> UInt64 {
        try check(8)
        return UInt64(try u32le()) | UInt64(try u32le()) << 32
    }

    public mutating func i8() throws(ShortRead) -> Int8 { Int8(bitPattern: try u8()) }

    /// The next `count` bytes, sharing storage with the reader's bytes.
    public mutating func bytes(_ count: Int) throws(ShortRead) -> ArraySlice<UInt8> {
        try check(count)
        let b = bytes.startIndex + offset
        offset += count
        return bytes[b ..< b + count]
    }

    public mutating func skip(_ count: Int) throws(ShortRead) {
        try check(count)
        offset += count
    }

    /// Everything left; the reader is at its end afterwards.
    public mutating func rest() -> ArraySlice<UInt8> {
        let b = bytes.startIndex + min(offset, bytes.count)
        offset = bytes.count
        return bytes[b...]
    }
}
