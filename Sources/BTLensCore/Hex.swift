public enum Hex {
    /// The lowercase hex digit for a nibble.
    @inlinable
    public static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// Lowercase hex with no separators: `a50120`. Inlinable and written straight into the
    /// string's storage: timelines call it for every frame.
    @inlinable
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let count = bytes.count
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0f)
                i += 2
            }
            return i
        }
    }

    /// Lowercase hex with a space between bytes: `a5 01 20`.
    @inlinable
    public static func spaced<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let count = bytes.count
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count * 3 - 1) { out in
            var i = 0
            for b in bytes {
                if i > 0 {
                    out[i] = 0x20
                    i += 1
                }
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0f)
                i += 2
            }
            return i
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
        let significant = max(1, (64 - v.leadingZeroBitCount + 3) / 4)
        let digits = max(significant, width)
        return String(unsafeUninitializedCapacity: digits + 2) { out in
            out[0] = 0x30
            out[1] = 0x78
            for i in 0 ..< digits {
                let shift = UInt64(4 * (digits - 1 - i))
                out[2 + i] = digit(shift < 64 ? UInt8(truncatingIfNeeded: v >> shift) & 0x0f : 0)
            }
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
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
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
