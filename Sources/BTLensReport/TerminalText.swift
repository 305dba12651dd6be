/// Makes text from a capture safe to print on a terminal: control characters (ESC included, so
/// no ANSI injection), C1 controls and bidi overrides become visible `\u{…}` escapes.
public enum TerminalText {
    public static func safe(_ s: String) -> String {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return s }
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
}
