/// The bounds on what a definition may ask of a message (`DefinitionCost`), and keys that name one
/// number twice.
extension DefinitionParser.Parser {
    /// A message whose fields could produce more values than a message may, or that takes the
    /// definition past its expanded fields, is refused at its line.
    mutating func bound(_ fields: [FieldSpec], _ message: String, _ at: YAMLValue) throws(DefinitionError) {
        let f = cost.figures(fields)
        guard f.items <= DefinitionCost.maxItems else {
            throw at.error(
                "message \(message): its fields can produce more than \(DefinitionCost.maxItems) values"
                    + " (repeats of types of repeats); a message may produce at most \(DefinitionCost.maxItems)")
        }
        expandedFields += f.expanded
        guard expandedFields <= DefinitionCost.maxExpandedFields else {
            throw at.error(
                "message \(message): with its named types written out, the definition's messages have more than"
                    + " \(DefinitionCost.maxExpandedFields) fields (types of types of …); at most"
                    + " \(DefinitionCost.maxExpandedFields)")
        }
    }
}

/// The numbers of a mapping's keys, each of which may be spelt once: `1`, `0x1` and `0b1` are one key.
struct Spellings {
    private let what: String
    private var seen: [Int64: String] = [:]

    init(_ what: String) { self.what = what }

    mutating func add(_ value: Int64, _ key: String, _ at: YAMLValue) throws(DefinitionError) {
        if let earlier = seen[value] {
            throw at.error("\(what): key '\(key)' is \(value), as '\(earlier)' is; each value once")
        }
        seen[value] = key
    }
}
