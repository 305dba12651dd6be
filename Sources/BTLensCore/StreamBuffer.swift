/// The unconsumed bytes of a stream: appended at the back, consumed from the front. Consumed
/// space is reclaimed once it is half the storage, so appending stays amortised O(1).
/// Offsets are from the front; callers check `count` before reading, as framers do.
/// Inlinable: framers in other modules read it byte by byte.
public struct StreamBuffer: Sendable {
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var start = 0

    public init() {}

    @inlinable public var count: Int { storage.count - start }
    @inlinable public var isEmpty: Bool { count == 0 }

    @inlinable public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// The byte `offset` bytes from the front; `offset` must be below `count`.
    @inlinable public subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// Bytes `range` (from the front); the range must lie within `count`.
    @inlinable public func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        storage[start + range.lowerBound ..< start + range.upperBound]
    }

    /// Bytes `range` (from the front) as raw memory: a framer reads a frame in place.
    @inlinable public func withUnsafeBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start + range.lowerBound ..< start + range.upperBound])) }
    }

    /// Offset of the first `byte` at or after `from`, if any.
    @inlinable public func firstIndex(of byte: UInt8, from: Int = 0) -> Int? {
        storage[(start + from)...].firstIndex(of: byte).map { $0 - start }
    }

    @inlinable public mutating func consume(_ n: Int) { start += min(max(n, 0), count) }

    @inlinable public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
    }
}
