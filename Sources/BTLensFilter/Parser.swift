/// Reads a display filter into its `Syntax`.
///
///     filter     := or
///     or         := and (("||" | "or") and)*
///     and        := unary (("&&" | "and") unary)*
///     unary      := ("!" | "not") unary | "(" or ")" | test
///     test       := NAME [relation]
///     relation   := ("==" | "!=" | "<" | "<=" | ">" | ">=") value
///                 | "contains" value | "matches" value | "in" set
///     set        := "{" item ([","] item)* "}" | item
///     item       := value [".." value]
///     value      := WORD | "STRING"
///
/// `not` binds tighter than `and`, which binds tighter than `or`.
struct Parser {
    private let tokens: [Token]
    private let expression: String
    private var i = 0
    /// Operators and parentheses read: each nests the tree (and the parser, the compiler and the
    /// evaluator) one level deeper, so their number is bounded before the stack is.
    private var nesting = 0
    static let nestingLimit = 256

    static func parse(_ expression: String) throws(FilterError) -> Syntax {
        var p = Parser(tokens: try Lexer.tokens(expression), expression: expression)
        guard p.peek.kind != .end else { throw FilterError("the filter is empty", in: expression, at: 0) }
        let s = try p.or()
        guard p.peek.kind == .end else {
            throw p.error(
                p.peek.kind == .close ? "')' without its '('" : "expected '&&', '||' or the end of the filter",
                p.peek)
        }
        return s
    }

    private init(tokens: [Token], expression: String) {
        self.tokens = tokens
        self.expression = expression
    }

    private var peek: Token { tokens[min(i, tokens.count - 1)] }

    private mutating func take() -> Token {
        let t = peek
        if i < tokens.count - 1 { i += 1 }
        return t
    }

    /// Takes an operator or parenthesis, counted against `nestingLimit`.
    private mutating func nest() throws(FilterError) -> Token {
        let t = take()
        nesting += 1
        guard nesting <= Self.nestingLimit else {
            throw error("the filter nests too deep: at most \(Self.nestingLimit) operators and parentheses", t)
        }
        return t
    }

    private func error(_ message: String, _ t: Token) -> FilterError {
        FilterError(message, in: expression, at: t.column, length: t.length)
    }

    private mutating func or() throws(FilterError) -> Syntax {
        var left = try and()
        while peek.kind == .or {
            _ = try nest()
            left = .or(left, try and())
        }
        return left
    }

    private mutating func and() throws(FilterError) -> Syntax {
        var left = try unary()
        while peek.kind == .and {
            _ = try nest()
            left = .and(left, try unary())
        }
        return left
    }

    private mutating func unary() throws(FilterError) -> Syntax {
        let t = peek.kind == .not || peek.kind == .open ? try nest() : take()
        switch t.kind {
        case .not: return .not(try unary())
        case .open:
            let inner = try or()
            guard peek.kind == .close else {
                throw error("expected ')' to close the '(' at column \(t.column + 1)", peek)
            }
            _ = take()
            return inner
        case .word(let name):
            return try relation(Syntax.Located(text: name, quoted: false, column: t.column, length: t.length))
        case .end: throw error("the filter ends where a test was expected", t)
        case .string: throw error("a field name or event type was expected here, not a string", t)
        default: throw error("a field name or event type was expected here", t)
        }
    }

    private mutating func relation(_ field: Syntax.Located) throws(FilterError) -> Syntax {
        switch peek.kind {
        case .compare(let c):
            _ = take()
            return .compare(field, c, try value())
        case .contains:
            _ = take()
            return .contains(field, try value())
        case .matches:
            _ = take()
            return .matches(field, try value())
        case .in:
            _ = take()
            return .in(field, try set())
        default: return .name(field)
        }
    }

    private mutating func value() throws(FilterError) -> Syntax.Located {
        let t = take()
        switch t.kind {
        case .word(let w): return Syntax.Located(text: w, quoted: false, column: t.column, length: t.length)
        case .string(let s): return Syntax.Located(text: s, quoted: true, column: t.column, length: t.length)
        case .end: throw error("the filter ends where a value was expected", t)
        default: throw error("a value was expected here", t)
        }
    }

    private mutating func set() throws(FilterError) -> [Syntax.SetItem] {
        guard peek.kind == .openBrace else { return [try item()] }
        let open = take()
        var items: [Syntax.SetItem] = []
        while peek.kind != .closeBrace {
            guard peek.kind != .end else { throw error("'{' at column \(open.column + 1) is not closed", peek) }
            items.append(try item())
            if peek.kind == .comma { _ = take() }
        }
        _ = take()
        guard !items.isEmpty else { throw error("the set is empty", open) }
        return items
    }

    private mutating func item() throws(FilterError) -> Syntax.SetItem {
        let low = try value()
        guard peek.kind == .range else { return .value(low) }
        _ = take()
        return .range(low, try value())
    }
}
