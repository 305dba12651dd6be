import BTLensCore

/// A line of the terminal timeline built in bytes: each piece is copied once into one buffer, with
/// no String made per piece (a timeline has a line per event, hundreds of thousands of them).
struct TextLine {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func add(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    mutating func add(text s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func add(_ line: TextLine) { bytes.append(contentsOf: line.bytes) }

    private static let blanks: StaticString = "                                                                "

    mutating func spaces(_ n: Int) {
        guard n > 0 else { return }
        Self.blanks.withUTF8Buffer { blanks in
            var left = n
            while left > 0 {
                let piece = min(left, blanks.count)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: blanks[..<piece]))
                left -= piece
            }
        }
    }

    /// In decimal, as `String(n)` writes it.
    mutating func decimal<T: BinaryInteger>(_ n: T) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = UInt64(truncatingIfNeeded: n.magnitude)
        digitsOf(magnitude, count: DecimalDigits.count(magnitude))
    }

    /// The last `count` decimal digits of `n`, zero-padded: written on the stack, then
    /// appended in one copy.
    private mutating func digitsOf(_ n: UInt64, count: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { out in
            guard let base = out.baseAddress else { return }
            DecimalDigits.write(n, count: count, into: base)
            bytes.append(contentsOf: UnsafeBufferPointer(out))
        }
    }

    /// `0x` and at least `width` lowercase digits, as `Hex.value` writes it.
    mutating func hex<T: BinaryInteger & UnsignedInteger>(_ v: T, width: Int) {
        bytes.append(UInt8(ascii: "0"))
        bytes.append(UInt8(ascii: "x"))
        hexDigits(v, width: width)
    }

    /// At least `width` lowercase hex digits, no prefix.
    mutating func hexDigits<T: BinaryInteger & UnsignedInteger>(_ v: T, width: Int) {
        let value = UInt64(truncatingIfNeeded: v)
        let digits = Hex.digitCount(value, width: width)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digits) { out in
            guard let base = out.baseAddress else { return }
            Hex.writeDigits(value, count: digits, into: base)
            bytes.append(contentsOf: UnsafeBufferPointer(out))
        }
    }

    /// Bytes in lowercase hex with a space between them, as `Hex.spaced` writes them: written on
    /// the stack, then appended in one copy.
    mutating func spacedHex<C: Collection>(_ data: C) where C.Element == UInt8 {
        let n = Hex.encodedLength(data.count, separated: true)
        guard n > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { out in
            guard let base = out.baseAddress else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: Hex.write(data, separator: UInt8(ascii: " "), into: base)))
        }
    }

    /// Seconds since `origin` with six decimals, right-aligned in `width` columns, as
    /// `Timestamp.offset(from:)` writes them.
    mutating func offset(_ t: Timestamp, from origin: Timestamp, width: Int) {
        let (delta, overflow) = t.microseconds.subtractingReportingOverflow(origin.microseconds)
        guard !overflow else {
            spaces(width - 1)
            return add("?")
        }
        let seconds = delta.magnitude / 1_000_000
        let digits = DecimalDigits.count(seconds)
        spaces(width - (delta < 0 ? 1 : 0) - digits - 7)
        if delta < 0 { bytes.append(UInt8(ascii: "-")) }
        digitsOf(seconds, count: digits)
        bytes.append(UInt8(ascii: "."))
        digitsOf(delta.magnitude % 1_000_000, count: 6)
    }
}
