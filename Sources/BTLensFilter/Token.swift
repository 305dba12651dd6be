/// One token of a display filter, with where it is in the expression (for the caret of an error).
struct Token: Equatable {
    enum Kind: Equatable {
        /// A name, a number, a bare value (`bassBoost`, `a5:01:20`, `0x20`, `2023-11-14T22:13:20Z`).
        case word(String)
        /// A quoted string, unescaped.
        case string(String)
        case open, close, openBrace, closeBrace, comma, range
        case and, or, not
        case compare(Comparison)
        case contains, matches, `in`
        case end
    }

    var kind: Kind
    /// Character offset and length in the expression.
    var column: Int
    var length: Int
}

/// The relations between a field and a value.
public enum Comparison: String, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// Whether `order` (the field's value against the operand: <0, 0, >0) satisfies the relation.
    @inline(__always) func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }
}
