/// A problem in a definition file: where it is and what was expected.
public struct DefinitionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `Dissectors/x.yaml:12: unknown type 'u3'; expected …`, as compilers print it.
    public var description: String { "\(file):\(line.map(String.init) ?? "-"): \(message)" }
}

/// Every error of one definition file, in line order: a file is checked whole, not to its first error.
public struct DefinitionErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var all: [DefinitionError]

    public init(_ all: [DefinitionError]) { self.all = all }

    /// One error per line.
    public var description: String { all.map(\.description).joined(separator: "\n") }
}
