/// `{tlv: {tag: u1, length: u2le, enum: tags, values: {0x01: battery, _: bytes}}}`: a list of
/// tag-length-value items, each value's type chosen by its tag as a switch chooses.
extension DefinitionParser.Parser {
    static let tlvWidths: [String: (width: Int, bigEndian: Bool)] = [
        "u1": (1, false), "u2le": (2, false), "u2be": (2, true), "u4le": (4, false), "u4be": (4, true),
    ]

    /// Nil for a mapping without `tlv`.
    mutating func tlvType(_ t: YAMLValue, _ here: String, size: FieldSpec.Size?, known: Set<String>)
        throws(DefinitionError) -> FieldSpec.FieldType?
    {
        guard (try? t.mapping(""))?.contains(where: { $0.key == "tlv" }) == true else { return nil }
        let node = try t.fields("\(here) type", allowed: ["tlv"]).required("tlv", "\(here) type")
        let m = try node.fields("\(here) tlv", allowed: ["tag", "length", "enum", "values"])
        func width(_ key: String) throws(DefinitionError) -> (width: Int, bigEndian: Bool) {
            let v = try m.required(key, "\(here) tlv")
            let name = try v.string("\(here) tlv \(key)")
            guard let w = Self.tlvWidths[name] else {
                throw v.error("\(here): tlv \(key) '\(name)'; expected u1, u2le, u2be, u4le or u4be")
            }
            return w
        }
        var tlv = FieldSpec.TLV(tag: try width("tag"), length: try width("length"), tagNames: nil, values: [:])
        if let e = m["enum"] {
            let name = try e.string("\(here) tlv enum")
            guard let values = enums[name] else {
                throw e.error("\(here): tlv enum '\(name)' is not defined under enums:")
            }
            tlv.tagNames = EnumNames(values)
        }
        let cases = try m.required("values", "\(here) tlv")
        var spelt = Spellings("\(here) tlv values")
        for (k, v) in try cases.mapping("\(here) tlv values") {
            // A value is read within its length: to its end unless its type says less.
            let type = try fieldType(v, here, size: nil, known: known)
            if k == "_" {
                tlv.fallback = type
            } else if let tag = YAMLValue.parseInteger(k) {
                try spelt.add(tag, k, v)
                tlv.values[tag] = type
            } else {
                throw cases.error("\(here): tlv tag '\(k)' is not an integer or _")
            }
        }
        return .tlv(tlv, size ?? .eos)
    }
}
