public enum Hex {
    /// The lowercase hex digit for a nibble.
    @inlinable
    static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// Bytes written by `write(_:separator:into:)` for `count` bytes.
    @inlinable
    public static func encodedLength(_ count: Int, separated: Bool) -> Int {
        count == 0 ? 0 : separated ? 3 * count - 1 : 2 * count
    }

    /// Bytes as lowercase hex into `out`, `separator` between them when given; `out` has room for
    /// `encodedLength`. Returns how many bytes it wrote. The one hex encoder: the String forms below,
    /// the JSONL writer and the timeline's line builder all write through it.
    @inlinable @discardableResult
    public static func write<C: Collection>(_ bytes: C, separator: UInt8? = nil, into out: UnsafeMutablePointer<UInt8>)
        -> Int
    where C.Element == UInt8 {
        if let written = bytes.withContiguousStorageIfAvailable({ write($0, separator: separator, into: out) }) {
            return written
        }
        return Array(bytes).withUnsafeBufferPointer { write($0, separator: separator, into: out) }
    }

    /// Each byte's two digits, laid out in memory in the order they are written: one store a byte.
    @usableFromInline static let pairs: [UInt16] = (0..<256).map { b in
        (UInt16(digit(UInt8(b >> 4))) | UInt16(digit(UInt8(b & 0x0f))) << 8).littleEndian
    }

    @inlinable
    static func write(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8?, into out: UnsafeMutablePointer<UInt8>)
        -> Int
    {
        pairs.withUnsafeBufferPointer { pairs in
            let raw = UnsafeMutableRawPointer(out)
            guard let separator else {
                let done = writeBlocks(bytes, into: raw)
                for i in done..<bytes.count {
                    raw.storeBytes(of: pairs[Int(bytes[i])], toByteOffset: 2 * i, as: UInt16.self)
                }
                return encodedLength(bytes.count, separated: false)
            }
            for (i, b) in bytes.enumerated() {
                if i > 0 { out[3 * i - 1] = separator }
                raw.storeBytes(of: pairs[Int(b)], toByteOffset: 3 * i, as: UInt16.self)
            }
            return encodedLength(bytes.count, separated: true)
        }
    }

    /// Unseparated hex 16 bytes at a time in vector registers: each nibble becomes its digit, and
    /// widening the high digits and shifting in the low ones lays each pair out in order. Payloads
    /// are most of a JSONL line. Returns how many bytes it encoded: all, or none below 16.
    @inlinable
    static func writeBlocks(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawPointer) -> Int {
        #if _endian(little)
        guard let base = bytes.baseAddress else { return 0 }
        guard bytes.count >= 16 else { return 0 }
        var i = 0
        while bytes.count - i >= 16 {
            writeBlock(base + i, into: out + 2 * i)
            i += 16
        }
        // The last block overlaps the one before it, which writes the same digits again.
        if i < bytes.count { writeBlock(base + bytes.count - 16, into: out + 2 * (bytes.count - 16)) }
        return bytes.count
        #else
        return 0
        #endif
    }

    @inlinable @inline(__always)
    static func writeBlock(_ bytes: UnsafePointer<UInt8>, into out: UnsafeMutableRawPointer) {
        let block = UnsafeRawPointer(bytes).loadUnaligned(as: SIMD16<UInt8>.self)
        let high = SIMD16<UInt16>(truncatingIfNeeded: digits(block &>> 4))
        let low = SIMD16<UInt16>(truncatingIfNeeded: digits(block & 0x0f))
        out.storeBytes(of: high | low &<< 8, as: SIMD16<UInt16>.self)
    }

    /// Nibbles to lowercase hex digits, lane by lane.
    @inlinable @inline(__always)
    static func digits(_ nibbles: SIMD16<UInt8>) -> SIMD16<UInt8> {
        // (n + 6) >> 4 is 1 from 10 up; 0 - 1 is all ones, which keeps the letters' offset.
        let isLetter = (nibbles &+ 6) &>> 4
        return nibbles &+ 0x30 &+ ((0 &- isLetter) & (0x57 - 0x30))
    }

    /// How many digits `value(v, width:)` writes after its `0x`: all the significant ones, at least `width`.
    @inlinable
    public static func digitCount(_ v: UInt64, width: Int) -> Int {
        max(max(1, (64 - v.leadingZeroBitCount + 3) / 4), width)
    }

    /// The last `count` hex digits of `v` into `out`, most significant first: from the right, a
    /// byte's pair of digits at a time.
    @inlinable
    public static func writeDigits(_ v: UInt64, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        var end = count
        var rest = v
        pairs.withUnsafeBufferPointer { pairs in
            while end >= 2 {
                UnsafeMutableRawPointer(out + end - 2).storeBytes(of: pairs[Int(rest & 0xff)], as: UInt16.self)
                rest >>= 8
                end -= 2
            }
        }
        if end == 1 { out[0] = digit(UInt8(truncatingIfNeeded: rest) & 0x0f) }
    }

    /// Lowercase hex with no separators: `a50120`.
    @inlinable
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(unsafeUninitializedCapacity: encodedLength(bytes.count, separated: false)) { out in
            guard let base = out.baseAddress else { return 0 }
            return write(bytes, into: base)
        }
    }

    /// Lowercase hex with a space between bytes: `a5 01 20`.
    @inlinable
    public static func spaced<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(unsafeUninitializedCapacity: encodedLength(bytes.count, separated: true)) { out in
            guard let base = out.baseAddress else { return 0 }
            return write(bytes, separator: 0x20, into: base)
        }
    }

    /// `0x` and at least `width` hex digits: `value(0x2a, width: 2)` → `0x2a`. Negative values
    /// (which no wire field has) are written as Swift writes them.
    @inlinable
    public static func value<T: BinaryInteger>(_ value: T, width: Int) -> String {
        guard value >= 0, let v = UInt64(exactly: value) else {
            let digits = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let digits = digitCount(v, width: width)
        return String(unsafeUninitializedCapacity: digits + 2) { out in
            guard let base = out.baseAddress else { return 0 }
            base[0] = 0x30
            base[1] = 0x78
            writeDigits(v, count: digits, into: base + 2)
            return digits + 2
        }
    }

    /// Bytes from a hex string, ignoring spaces; nil on any other character or an odd count.
    public static func bytes(_ text: String) -> [UInt8]? {
        var out = [UInt8]()
        var high: UInt8?
        for c in text.utf8 {
            if c == 0x20 || c == 0x0a || c == 0x09 { continue }
            guard let nibble = nibble(c) else { return nil }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}
