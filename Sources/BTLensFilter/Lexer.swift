/// Splits a display filter into tokens. Words run over letters, digits and `_ . : -` (so that
/// `a5.checksum.bad`, `a5:01:20`, `aurora-headphones` and ISO 8601 times are one word), and stop
/// before `..` (a range: `100..200`).
struct Lexer {
    private let chars: [Character]
    private let expression: String
    private var i = 0

    init(_ expression: String) {
        self.expression = expression
        chars = Array(expression)
    }

    /// Every token, ending with `.end`.
    static func tokens(_ expression: String) throws(FilterError) -> [Token] {
        var lexer = Lexer(expression)
        var out: [Token] = []
        while true {
            let t = try lexer.next()
            out.append(t)
            if t.kind == .end { return out }
        }
    }

    private static let keywords: [String: Token.Kind] = [
        "and": .and, "or": .or, "not": .not, "contains": .contains, "matches": .matches, "in": .in,
        "eq": .compare(.equal), "ne": .compare(.notEqual), "lt": .compare(.less), "le": .compare(.lessOrEqual),
        "gt": .compare(.greater), "ge": .compare(.greaterOrEqual),
    ]

    private static func isWord(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "." || c == ":" || c == "-"
    }

    private mutating func next() throws(FilterError) -> Token {
        while i < chars.count, chars[i].isWhitespace { i += 1 }
        let start = i
        guard i < chars.count else { return Token(kind: .end, column: i, length: 1) }
        let c = chars[i]
        let two = i + 1 < chars.count ? String([c, chars[i + 1]]) : String(c)
        func token(_ kind: Token.Kind, _ n: Int) -> Token {
            i += n
            return Token(kind: kind, column: start, length: n)
        }
        switch two {
        case "==": return token(.compare(.equal), 2)
        case "!=": return token(.compare(.notEqual), 2)
        case "<=": return token(.compare(.lessOrEqual), 2)
        case ">=": return token(.compare(.greaterOrEqual), 2)
        case "&&": return token(.and, 2)
        case "||": return token(.or, 2)
        case "..": return token(.range, 2)
        default: break
        }
        if c == "r" || c == "R", i + 1 < chars.count, chars[i + 1] == "\"" || chars[i + 1] == "'" {
            return try quoted(chars[i + 1], raw: true)
        }
        switch c {
        case "(": return token(.open, 1)
        case ")": return token(.close, 1)
        case "{": return token(.openBrace, 1)
        case "}": return token(.closeBrace, 1)
        case ",": return token(.comma, 1)
        case "<": return token(.compare(.less), 1)
        case ">": return token(.compare(.greater), 1)
        case "!": return token(.not, 1)
        case "\"", "'": return try quoted(c)
        case "=":
            throw FilterError("'=' is not an operator: write '==' to compare", in: expression, at: start)
        case "&", "|":
            throw FilterError("'\(c)' alone is not an operator: write '\(c)\(c)'", in: expression, at: start)
        default: break
        }
        guard Self.isWord(c) else {
            throw FilterError("unexpected character '\(c)'", in: expression, at: start)
        }
        while i < chars.count, Self.isWord(chars[i]) {
            if chars[i] == ".", i + 1 < chars.count, chars[i + 1] == "." { break }
            i += 1
        }
        let word = String(chars[start..<i])
        return Token(kind: Self.keywords[word] ?? .word(word), column: start, length: i - start)
    }

    /// A string in quotes, with Wireshark's escapes: `\\ \" \'`, `\a \b \f \n \r \t \v`, `\xhh`
    /// (1 or 2 hex digits), `\ooo` (1 to 3 octal digits), `\uhhhh`, `\Uhhhhhhhh`; any other is
    /// refused. `\x` and octal escapes are bytes, and the string's bytes must be UTF-8. A raw
    /// string (`r"\d"`) keeps every backslash, as a regular expression wants; `\"` still does not
    /// end it.
    private mutating func quoted(_ quote: Character, raw: Bool = false) throws(FilterError) -> Token {
        let start = i
        i += raw ? 2 : 1
        var bytes: [UInt8] = []
        while i < chars.count, chars[i] != quote {
            if chars[i] == "\\", raw {
                bytes += Array(String(chars[i...min(i + 1, chars.count - 1)]).utf8)
                i = min(i + 2, chars.count)
            } else if chars[i] == "\\" {
                bytes += try escape()
            } else {
                bytes += Array(String(chars[i]).utf8)
                i += 1
            }
        }
        guard i < chars.count else {
            throw FilterError("string not closed: a \(quote) is missing", in: expression, at: start, length: i - start)
        }
        i += 1
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FilterError(
                "the string's escapes make bytes that are not UTF-8", in: expression, at: start, length: i - start)
        }
        return Token(kind: .string(text), column: start, length: i - start)
    }

    private static let simpleEscapes: [Character: UInt8] = [
        "\\": 0x5C, "\"": 0x22, "'": 0x27, "a": 0x07, "b": 0x08, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09,
        "v": 0x0B,
    ]

    /// The escape at `i` (a backslash), as bytes; `i` moves past it.
    private mutating func escape() throws(FilterError) -> [UInt8] {
        let start = i
        guard i + 1 < chars.count else {
            throw FilterError("a \\ ends the filter: the string is not closed", in: expression, at: start)
        }
        let c = chars[i + 1]
        i += 2
        if let byte = Self.simpleEscapes[c] { return [byte] }
        // Up to `most` ASCII digits of `radix` after the escape's letter (for octal, from its first digit).
        func digits(_ radix: Int, most: Int) -> (value: UInt32, count: Int) {
            var value: UInt32 = 0
            var n = 0
            while n < most, i < chars.count, chars[i].isASCII, let d = chars[i].hexDigitValue, d < radix {
                value = value * UInt32(radix) + UInt32(d)
                n += 1
                i += 1
            }
            return (value, n)
        }
        func bad(_ why: String) -> FilterError { FilterError(why, in: expression, at: start, length: i - start) }
        switch c {
        case "0"..."7":
            i -= 1
            let (value, _) = digits(8, most: 3)
            guard value <= 0xFF else {
                throw bad("\\\(String(chars[start + 1..<i])) is past \\377, the largest octal byte")
            }
            return [UInt8(value)]
        case "x":
            let (value, n) = digits(16, most: 2)
            guard n > 0 else { throw bad("\\x needs 1 or 2 hex digits") }
            return [UInt8(value)]
        case "u", "U":
            let want = c == "u" ? 4 : 8
            let (value, n) = digits(16, most: want)
            guard n == want else { throw bad("\\\(c) needs \(want) hex digits") }
            guard let scalar = Unicode.Scalar(value) else {
                throw bad("\\\(String(chars[start + 1..<i])) is not a Unicode character")
            }
            return Array(String(scalar).utf8)
        default:
            throw bad("\\\(c) is not a valid character escape sequence")
        }
    }
}
