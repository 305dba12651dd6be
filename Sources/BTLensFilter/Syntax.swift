/// A display filter as written, before its names are resolved (`Compiler`).
indirect enum Syntax: Equatable {
    case and(Syntax, Syntax)
    case or(Syntax, Syntax)
    case not(Syntax)
    /// A bare name: an event type (or family), or a field that must be present.
    case name(Located)
    case compare(Located, Comparison, Located)
    case contains(Located, Located)
    case matches(Located, Located)
    case `in`(Located, [SetItem])

    /// A word or string with where it was written.
    struct Located: Equatable {
        var text: String
        /// Written in quotes: a string, never a name or a number.
        var quoted: Bool
        var column: Int
        var length: Int
    }

    /// One member of a set: a value, or a range of them (`100..200`, both ends included).
    enum SetItem: Equatable {
        case value(Located)
        case range(Located, Located)
    }
}
