/// The unconsumed bytes of a stream: appended at the back, consumed from the front. Consumed
/// space is reclaimed once it is half the bytes held, so appending stays amortised O(1).
/// Offsets are from the front; callers check `count` before reading, as framers do.
/// Inlinable: framers in other modules read it byte by byte.
public struct StreamBuffer: Sendable {
    /// Bytes `start ..< end` are the stream's; the storage only grows, so a stream's values are
    /// copied into room it already has instead of appended to an array at each value.
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var start = 0
    @usableFromInline var end = 0

    public init() {}

    @inlinable public var count: Int { end - start }
    @inlinable public var isEmpty: Bool { count == 0 }

    @inlinable public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start == end {
            (start, end) = (0, 0)
        } else if start > 0 && start >= end / 2 {
            let (from, kept) = (start, count)
            storage.withUnsafeMutableBytes { room in
                // Overlapping moves are allowed: this is memmove.
                room.baseAddress.map { $0.copyMemory(from: $0 + from, byteCount: kept) }
            }
            (start, end) = (0, kept)
        }
        let n = bytes.count
        if end + n > storage.count { storage.append(contentsOf: repeatElement(0, count: end + n - storage.count)) }
        let at = end
        storage.withUnsafeMutableBufferPointer { room in
            // Nil when the bytes have no contiguous storage: they are copied one by one then.
            let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
                guard let from = source.baseAddress, let to = room.baseAddress else { return }
                (to + at).update(from: from, count: n)
            }
            if copied == nil {
                for (i, byte) in bytes.enumerated() { room[at + i] = byte }
            }
        }
        end += n
    }

    /// The byte `offset` bytes from the front; `offset` must be below `count`.
    @inlinable public subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// Bytes `range` (from the front); the range must lie within `count`.
    @inlinable public func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        storage[start + range.lowerBound..<start + range.upperBound]
    }

    /// Bytes `range` (from the front) as raw memory: a framer reads a frame in place.
    @inlinable public func withUnsafeBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes {
            body(UnsafeRawBufferPointer(rebasing: $0[start + range.lowerBound..<start + range.upperBound]))
        }
    }

    /// Offset of the first `byte` at or after `from`, if any.
    @inlinable public func firstIndex(of byte: UInt8, from: Int = 0) -> Int? {
        storage[(start + from)..<end].firstIndex(of: byte).map { $0 - start }
    }

    @inlinable public mutating func consume(_ n: Int) { start += min(max(n, 0), count) }

    @inlinable public mutating func removeAll() { (start, end) = (0, 0) }
}
