import BTLensCore
import BTLensDissect

/// `pairing: match: {field: PATH}` and `{echo: PATH}`: a response found by a token in its payload.
extension DefinitionParser.Parser {
    func tokenMatch(_ v: YAMLValue, messages: [DefinitionDissector.MessageDef]) throws(DefinitionError)
        -> (PairingRule.Match, [String])
    {
        let m = try v.mapping("pairing match")
        guard m.count == 1, let (key, value) = m.first, let match = PairingRule.Match(rawValue: key),
            match == .field || match == .echo
        else {
            throw v.error("pairing match: expected {field: NAME} or {echo: NAME} (a field path such as body.2)")
        }
        let path = try value.string("pairing match \(key)").split(separator: ".", omittingEmptySubsequences: false)
            .map(String.init)
        try checkTokenPath(path, value, "pairing match \(key)", messages)
        return (match, path)
    }

    /// What a path's next name may be: a field of these, a protobuf field number, or anything
    /// (a switch's cases are not followed).
    private enum Level {
        case fields([FieldSpec])
        case protobuf
        case open
    }

    /// Each name of `path` must be a field of the level before it: a message's field first, then
    /// a field of its type's `seq`, or a field number inside a protobuf.
    private func checkTokenPath(
        _ path: [String], _ v: YAMLValue, _ what: String, _ messages: [DefinitionDissector.MessageDef]
    ) throws(DefinitionError) {
        var level = Level.fields(messages.flatMap(\.fields))
        var walked: [String] = []
        for name in path {
            switch level {
            case .open:
                return
            case .protobuf:
                guard let n = UInt32(name), (1...0x1fff_ffff).contains(n) else {
                    throw v.error(
                        "\(what): '\(name)' in \(walked.joined(separator: ".")), a protobuf, is no field number")
                }
            case .fields(let specs):
                let found = specs.filter { $0.name == name }
                guard !found.isEmpty else {
                    var names: [String] = []
                    for s in specs where !names.contains(s.name) { names.append(s.name) }
                    let whose = walked.isEmpty ? "no message has" : "\(walked.joined(separator: ".")) has no"
                    throw v.error(
                        "\(what): \(whose) field '\(name)'; "
                            + (names.isEmpty ? "there are none" : "fields: \(names.joined(separator: ", "))"))
                }
                level = Self.inside(found)
                if case .fields(let inner) = level, inner.isEmpty, name != path.last {
                    throw v.error("\(what): \(name) is a value, with no fields inside")
                }
            }
            walked.append(name)
        }
    }

    /// The level inside fields of one name (one per message that has it).
    private static func inside(_ specs: [FieldSpec]) -> Level {
        var inner: [FieldSpec] = []
        for s in specs {
            switch s.type {
            case .group(let fields): inner += fields
            case .protobuf: return .protobuf
            case .switchOn: return .open
            default: break
            }
        }
        return .fields(inner)
    }
}
