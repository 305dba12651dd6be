import BTLensCore
import BTLensDissect

/// A frame variant's `sequence-per`: how each direction numbers its frames.
extension DefinitionParser.Parser {
    /// `command` (or another header field), `stream`, `none`, or `{phone: …, accessory: …}`.
    func sequenceScopes(_ v: YAMLValue, header: [FrameFormat.HeaderField]) throws(DefinitionError)
        -> SequenceScopes
    {
        guard header.contains(.sequence) else {
            throw v.error("framing sequence-per: the header has no sequence field to count")
        }
        if v.isScalar {
            let scope = try sequenceScope(v, header: header)
            return SequenceScopes(sent: scope, received: scope)
        }
        let m = try v.fields("framing sequence-per", allowed: ["phone", "accessory"])
        var scopes = SequenceScopes()
        if let p = m["phone"] { scopes.sent = try sequenceScope(p, header: header) }
        if let a = m["accessory"] { scopes.received = try sequenceScope(a, header: header) }
        return scopes
    }

    private func sequenceScope(_ v: YAMLValue, header: [FrameFormat.HeaderField]) throws(DefinitionError)
        -> SequenceScope
    {
        let text = try v.string("framing sequence-per")
        let present = SequenceKey.allCases.filter { key in
            header.contains { field in
                switch (key, field) {
                case (.command, .command), (.version, .version), (.flags, .flags): return true
                default: return false
                }
            }
        }
        if text == "stream" { return .stream }
        if text == "none" { return .none }
        guard let key = SequenceKey(rawValue: text), present.contains(key) else {
            let names = ["stream", "none"] + present.map(\.rawValue)
            throw v.error(
                "framing sequence-per: '\(text)'; expected \(names.joined(separator: ", ")) (the header's fields)")
        }
        return .per(key)
    }
}
