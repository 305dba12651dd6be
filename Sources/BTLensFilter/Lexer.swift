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

    /// A string in quotes; `\"`, `\'` and `\\` stand for the character.
    private mutating func quoted(_ quote: Character) throws(FilterError) -> Token {
        let start = i
        i += 1
        var text = ""
        while i < chars.count, chars[i] != quote {
            if chars[i] == "\\", i + 1 < chars.count { i += 1 }
            text.append(chars[i])
            i += 1
        }
        guard i < chars.count else {
            throw FilterError("string not closed: a \(quote) is missing", in: expression, at: start, length: i - start)
        }
        i += 1
        return Token(kind: .string(text), column: start, length: i - start)
    }
}
