/// Makes text from a capture safe to print on a terminal: control characters (ESC included, so
/// no ANSI injection), C1 controls and bidi overrides become visible `\u{…}` escapes.
public enum TerminalText {
    public static func safe(_ s: String) -> String {
        // Checked in place where the text is contiguous (native strings are): iterating the UTF-8
        // view costs several times as much a byte, and a field line can hold hundreds of hex digits.
        let plain = { (b: UInt8) in b >= 0x20 && b < 0x7f }
        if s.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(plain) }) ?? s.utf8.allSatisfy(plain) { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x00..<0x20, 0x7f, 0x80..<0xa0, 0x202a...0x202e, 0x2066...0x2069, 0x2028, 0x2029:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `s` in at most `columns` terminal columns: whole when it fits, else cut and ended with `…`.
    /// `s` is terminal-safe text (no control characters).
    public static func fit(_ s: String, columns: Int) -> String {
        // No character takes more columns than its UTF-8 bytes: most lines need no counting.
        guard s.utf8.count > columns else { return s }
        var used = 0
        var cut: String.Index?
        for i in s.indices {
            let w = width(s[i])
            // The longest prefix that leaves a column for `…`.
            if cut == nil, used + w > columns - 1 { cut = i }
            used += w
            if used > columns, let cut { return String(s[..<cut]) + "…" }
        }
        return s
    }

    /// Columns a character takes: 0 for a format character alone (zero-width joiner, direction
    /// marks), 2 for East Asian wide and fullwidth characters and emoji, 1 otherwise. Combining
    /// marks belong to the character before them.
    static func width(_ c: Character) -> Int {
        guard let first = c.unicodeScalars.first, !c.isASCII else { return 1 }
        let p = first.properties
        if p.generalCategory == .format || p.generalCategory == .nonspacingMark || p.generalCategory == .enclosingMark {
            return 0
        }
        if p.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115f, 0x2e80...0x303e, 0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff, 0xa000...0xa4cf,
            0xac00...0xd7a3, 0xf900...0xfaff, 0xfe30...0xfe4f, 0xff00...0xff60, 0xffe0...0xffe6, 0x20000...0x3fffd:
            return 2
        default:
            return 1
        }
    }
}
