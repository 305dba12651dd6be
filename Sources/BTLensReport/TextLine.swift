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
        var digits = 1
        var rest = n.magnitude / 10
        while rest > 0 { rest /= 10; digits += 1 }
        digitsOf(UInt64(truncatingIfNeeded: n.magnitude), count: digits)
    }

    /// The last `count` (at most 20) decimal digits of `n`, zero-padded: written on the stack, then
    /// appended in one copy.
    private mutating func digitsOf(_ n: UInt64, count: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { out in
            var m = n
            for i in stride(from: count - 1, through: 0, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: m % 10)
                m /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: out[..<count]))
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
        let digits = max(max(1, (64 - value.leadingZeroBitCount + 3) / 4), width)
        for i in 0 ..< digits {
            let shift = UInt64(4 * (digits - 1 - i))
            bytes.append(Hex.digit(shift < 64 ? UInt8(truncatingIfNeeded: value >> shift) & 0x0f : 0))
        }
    }

    /// Bytes in lowercase hex with a space between them, as `Hex.spaced` writes them: written on
    /// the stack, then appended in one copy.
    mutating func spacedHex<C: Collection>(_ data: C) where C.Element == UInt8 {
        let n = data.count
        guard n > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * n) { out in
            var i = 0
            for b in data {
                out[i] = Hex.digit(b >> 4)
                out[i + 1] = Hex.digit(b & 0x0f)
                out[i + 2] = UInt8(ascii: " ")
                i += 3
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: out[..<(3 * n - 1)]))
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
        var digits = 1
        var rest = seconds / 10
        while rest > 0 { rest /= 10; digits += 1 }
        spaces(width - (delta < 0 ? 1 : 0) - digits - 7)
        if delta < 0 { bytes.append(UInt8(ascii: "-")) }
        digitsOf(seconds, count: digits)
        bytes.append(UInt8(ascii: "."))
        digitsOf(delta.magnitude % 1_000_000, count: 6)
    }
}
