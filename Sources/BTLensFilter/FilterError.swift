/// A display filter that does not compile: what is wrong, and where in the expression, so that
/// the message can show the expression with a caret under the place (`^~~~` over its extent).
public struct FilterError: Error, Equatable, CustomStringConvertible {
    public var expression: String
    public var message: String
    /// Where the problem is: a character offset into `expression` (0-based), and how many characters.
    public var column: Int
    public var length: Int

    public init(_ message: String, in expression: String, at column: Int, length: Int = 1) {
        self.expression = expression
        self.message = message
        self.column = column
        self.length = max(1, length)
    }

    /// The message, then the expression, then a caret under the place.
    public var description: String {
        let line = expression.replacingControlCharacters()
        let span = max(1, min(length, line.count - column))
        return "invalid filter: \(message)\n  \(line)\n  "
            + String(repeating: " ", count: column) + "^" + String(repeating: "~", count: span - 1)
    }
}

extension String {
    /// Tabs and newlines as spaces: the caret line counts one column per character.
    fileprivate func replacingControlCharacters() -> String {
        String(map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
