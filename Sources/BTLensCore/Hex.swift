private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

public enum Hex {
    /// Lowercase hex with no separators: `a50120`.
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lowercase hex with a space between bytes: `a5 01 20`.
    public static func spaced<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 3)
        for b in bytes {
            if !out.isEmpty { out.append(0x20) }
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `0x` and exactly `width` hex digits: `hex(0x2a, 2)` → `0x2a`.
    public static func value<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
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
