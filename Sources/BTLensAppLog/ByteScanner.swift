/// A checked cursor over one line's bytes: every read looks at `count` first, so a short or
/// strange line fails a parse instead of trapping.
struct ByteScanner {
    let bytes: [UInt8]
    var at: Int

    init(_ bytes: [UInt8], at: Int = 0) {
        self.bytes = bytes
        self.at = at
    }

    var isAtEnd: Bool { at >= bytes.count }
    var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    func peek(_ ahead: Int) -> UInt8? {
        let i = at + ahead
        return i >= 0 && i < bytes.count ? bytes[i] : nil
    }

    /// Consumes `byte` when it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        at += 1
        return true
    }

    /// Consumes `text` (ASCII) when it comes next.
    mutating func take(_ text: String) -> Bool {
        let t = Array(text.utf8)
        guard at + t.count <= bytes.count, bytes[at..<at + t.count].elementsEqual(t) else { return false }
        at += t.count
        return true
    }

    /// Skips spaces and tabs; returns how many.
    @discardableResult
    mutating func skipSpaces() -> Int {
        let from = at
        while let b = peek, b == 0x20 || b == 0x09 { at += 1 }
        return at - from
    }

    /// Exactly `count` decimal digits as a number.
    mutating func digits(_ count: Int) -> Int? {
        guard at + count <= bytes.count else { return nil }
        var n = 0
        for i in at..<at + count {
            guard let d = Self.digit(bytes[i]) else { return nil }
            n = n * 10 + d
        }
        at += count
        return n
    }

    /// One to `most` decimal digits (at most 18, so the number fits), as a number.
    mutating func number(most: Int = 18) -> Int? {
        var n = 0
        var read = 0
        while read < min(most, 18), let b = peek, let d = Self.digit(b) {
            n = n * 10 + d
            at += 1
            read += 1
        }
        return read > 0 ? n : nil
    }

    /// One to 16 hex digits, as a number.
    mutating func hexNumber() -> Int? {
        var n: UInt64 = 0
        var read = 0
        while read < 16, let b = peek, let d = Self.hexDigit(b) {
            n = n << 4 | UInt64(d)
            at += 1
            read += 1
        }
        return read > 0 ? Int(truncatingIfNeeded: n) : nil
    }

    /// Bytes up to (not including) the first `byte`, which is consumed; nil, consuming nothing, when
    /// there is none.
    mutating func upTo(_ byte: UInt8) -> ArraySlice<UInt8>? {
        guard let end = bytes[min(at, bytes.count)...].firstIndex(of: byte) else { return nil }
        defer { at = end + 1 }
        return bytes[at..<end]
    }

    /// The rest of the line, consumed.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { at = bytes.count }
        return bytes[min(at, bytes.count)...]
    }

    static func digit(_ b: UInt8) -> Int? { b >= 0x30 && b <= 0x39 ? Int(b - 0x30) : nil }

    static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x61...0x66: return b - 0x61 + 10
        case 0x41...0x46: return b - 0x41 + 10
        default: return nil
        }
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a }
    static func isWordByte(_ b: UInt8) -> Bool { isLetter(b) || digit(b) != nil || b == 0x5f }
}

extension String {
    /// Bytes from a line as text: invalid UTF-8 becomes U+FFFD, never a trap.
    init<C: Collection>(line bytes: C) where C.Element == UInt8 { self.init(decoding: bytes, as: UTF8.self) }
}

extension ArraySlice where Element == UInt8 {
    /// Without spaces and tabs at either end.
    func trimmingSpaces() -> ArraySlice<UInt8> {
        var s = self
        while let f = s.first, f == 0x20 || f == 0x09 { s.removeFirst() }
        while let l = s.last, l == 0x20 || l == 0x09 { s.removeLast() }
        return s
    }
}
