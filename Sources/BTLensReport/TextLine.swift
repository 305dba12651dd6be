import BTLensCore
import BTLensDissect

/// A line of the terminal timeline built in bytes: each piece is copied once into one buffer, with
/// no String made per piece (a timeline has a line per event, hundreds of thousands of them).
struct TextLine {
    /// The line is `storage[..<count]`; the rest is room, so each piece is written in place after
    /// one room check rather than appended to an array.
    private var storage = [UInt8](repeating: 0, count: 256)
    private(set) var count = 0

    var bytes: ArraySlice<UInt8> { storage[..<count] }

    mutating func reset() { count = 0 }

    /// Forgets what was added after the first `n` bytes.
    mutating func truncate(to n: Int) { count = min(count, max(0, n)) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Makes room for `n` more bytes, then `body` writes at most `n` at the end and says how many:
    /// each piece is copied in place through a pointer (the text timeline figure of scripts/benchmark).
    /// Safe because every body here writes at most the `n` it asked room for, and the count is capped
    /// at `n`.
    @inline(__always) private mutating func write(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard n > 0 else { return }
        if count + n > storage.count {
            storage += repeatElement(0, count: max(storage.count, count + n - storage.count))
        }
        let end = count
        count += storage.withUnsafeMutableBufferPointer { room in
            guard let base = room.baseAddress else { return 0 }
            return min(body(base + end), n)
        }
    }

    @inline(__always) private mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        write(bytes.count) { out in
            ShortCopy.copy(bytes, to: out)
            return bytes.count
        }
    }

    @inline(__always) private mutating func add(byte: UInt8) {
        write(1) { out in
            out.pointee = byte
            return 1
        }
    }

    @inline(__always) mutating func add(_ s: StaticString) { s.withUTF8Buffer { add($0) } }

    mutating func add(text s: String) {
        var s = s
        s.withUTF8 { add($0) }
    }

    mutating func add(_ line: TextLine) {
        line.storage.withUnsafeBufferPointer { add(UnsafeBufferPointer(rebasing: $0[..<line.count])) }
    }

    mutating func spaces(_ n: Int) {
        write(n) { out in
            out.update(repeating: UInt8(ascii: " "), count: n)
            return n
        }
    }

    /// In decimal, as `String(n)` writes it.
    mutating func decimal<T: BinaryInteger>(_ n: T) {
        if n < 0 { add(byte: UInt8(ascii: "-")) }
        let magnitude = UInt64(truncatingIfNeeded: n.magnitude)
        digitsOf(magnitude, count: DecimalDigits.count(magnitude))
    }

    /// Microseconds as milliseconds, as `MessageValue.number(Double(us) / 1000)` writes them.
    mutating func milliseconds(_ us: Int64) {
        var fits = true
        write(16) { out in
            guard let n = DecimalDigits.milliseconds(us, into: out) else {
                fits = false
                return 0
            }
            return n
        }
        if !fits { add(text: MessageValue.number(Double(us) / 1000)) }
    }

    /// The last `count` decimal digits of `n`, zero-padded.
    private mutating func digitsOf(_ n: UInt64, count: Int) {
        write(count) { out in
            DecimalDigits.write(n, count: count, into: out)
            return count
        }
    }

    /// `0x` and at least `width` lowercase digits, as `Hex.value` writes it.
    mutating func hex<T: BinaryInteger & UnsignedInteger>(_ v: T, width: Int) {
        add("0x")
        hexDigits(v, width: width)
    }

    /// At least `width` lowercase hex digits, no prefix.
    mutating func hexDigits<T: BinaryInteger & UnsignedInteger>(_ v: T, width: Int) {
        let value = UInt64(truncatingIfNeeded: v)
        let digits = Hex.digitCount(value, width: width)
        write(digits) { out in
            Hex.writeDigits(value, count: digits, into: out)
            return digits
        }
    }

    /// Bytes in lowercase hex with a space between them, as `Hex.spaced` writes them.
    mutating func spacedHex<C: Collection>(_ data: C) where C.Element == UInt8 {
        write(Hex.encodedLength(data.count, separated: true)) { out in
            Hex.write(data, separator: UInt8(ascii: " "), into: out)
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
        if delta < 0 { add(byte: UInt8(ascii: "-")) }
        digitsOf(seconds, count: digits)
        add(byte: UInt8(ascii: "."))
        digitsOf(delta.magnitude % 1_000_000, count: 6)
    }
}
