import BTLensCore
import BTLensDissect

/// Message payload fields: `seq` lists, named `types`, switches.
extension DefinitionParser.Parser {
    static let fieldKeys = [
        "id", "type", "size", "repeat", "enum", "flags", "unit", "scale", "offset", "valid", "time", "pad-right", "doc",
    ]
    static let integerTypes = [
        "u1", "u2le", "u2be", "u3le", "u3be", "u4le", "u4be", "u8le", "u8be", "u2", "u3", "u4", "u8",
        "s1", "s2le", "s2be", "s3le", "s3be", "s4le", "s4be", "s8le", "s8be", "s2", "s3", "s4", "s8",
    ]
    static let typeNames =
        "u1, u2le, u2be, u3le … u8be, s1 … s8be, b1 … b64, vlq, svarint, f2le … f8be, bytes, str, strz, protobuf"

    /// A `seq` list; `known` holds the integer fields before it that sizes and switches may name.
    mutating func seq(_ v: YAMLValue, _ what: String, known: Set<String>) throws(DefinitionError) -> [FieldSpec] {
        var known = known
        var names: Set<String> = []
        var out: [FieldSpec] = []
        for item in try v.items(what) {
            guard let f = attempt({ p in try p.field(item, what, known: known) }) else {
                // Its error is said; the fields after it that name it are not wrong for that.
                if let id = (try? item.mapping("a field"))?.first(where: { $0.key == "id" }),
                    let name = try? id.value.string("")
                {
                    known.insert(name)
                }
                continue
            }
            guard names.insert(f.name).inserted else {
                errors.append(item.error("\(what): field '\(f.name)' is defined twice"))
                continue
            }
            if f.type.isInteger, f.repeats == nil { known.insert(f.name) }
            out.append(f)
        }
        return out
    }

    mutating func field(_ v: YAMLValue, _ what: String, known: Set<String>) throws(DefinitionError) -> FieldSpec {
        let m = try v.fields("a field of \(what)", allowed: Self.fieldKeys)
        let name = try identifier(m.required("id", "a field of \(what)"), "field id")
        let here = "field '\(name)'"
        func reference(_ r: YAMLValue, _ key: String) throws(DefinitionError) -> String {
            let target = try r.string("\(here) \(key)")
            guard known.contains(target) || checkingUnused else {
                let earlier = known.isEmpty ? "none" : known.sorted().joined(separator: ", ")
                throw r.error(
                    "\(here): \(key) refers to '\(target)', which is not an earlier integer field (earlier: \(earlier))"
                )
            }
            return target
        }
        var size: FieldSpec.Size?
        if let s = m["size"] {
            if let n = YAMLValue.parseInteger(try s.string("\(here) size")) {
                guard (0...65_535).contains(n) else { throw s.error("\(here): size \(n) is outside 0…65535") }
                size = .fixed(Int(n))
            } else if try s.string("\(here) size") == "eos" {
                size = .eos
            } else {
                size = .field(try reference(s, "size"))
            }
        }
        var type: FieldSpec.FieldType
        if let t = m["type"] {
            type = try fieldType(t, here, size: size, known: known)
        } else if let size {
            type = .bytes(size)
        } else {
            throw v.error("\(here): missing 'type' (u1, u2le, …, bytes, str, or a name from types:)")
        }
        var attributes = FieldSpec.Attributes()
        if let r = m["repeat"] {
            let text = try r.string("\(here) repeat")
            if text == "eos" {
                attributes.repeats = .eos
            } else if let n = YAMLValue.parseInteger(text) {
                guard (0...Int64(FieldDecoder.repeatLimit)).contains(n) else {
                    throw r.error("\(here): repeat \(n) is outside 0…\(FieldDecoder.repeatLimit)")
                }
                attributes.repeats = .count(Int(n))
            } else {
                attributes.repeats = .field(try reference(r, "repeat"))
            }
        }
        try integerAttributes(m, of: type, into: &attributes, here)
        try payloadAttributes(m, of: type, size: size, into: &attributes, here)
        return FieldSpec(name: name, type: type, attributes)
    }

    /// `enum`, `flags`, `unit`, `scale`, `offset` and `valid`, which only integer fields take.
    private func integerAttributes(
        _ m: YAMLFields, of type: FieldSpec.FieldType, into spec: inout FieldSpec.Attributes, _ here: String
    ) throws(DefinitionError) {
        func integerOnly(_ key: String, _ node: YAMLValue) throws(DefinitionError) {
            guard type.isInteger else { throw node.error("\(here): '\(key)' applies to integer fields only") }
        }
        // A float may have a unit, a scale and an offset too.
        func measured(_ key: String, _ node: YAMLValue) throws(DefinitionError) {
            guard type.isInteger || type.isFloat else {
                throw node.error("\(here): '\(key)' applies to integer and float fields only")
            }
        }
        if let e = m["enum"] {
            try integerOnly("enum", e)
            let enumName = try e.string("\(here) enum")
            if let values = enums[enumName] {
                spec.enumNames = EnumNames(values)
            } else if !broken.contains(enumName) {
                let defined = enums.isEmpty ? "none is" : enums.keys.sorted().joined(separator: ", ") + " are"
                throw e.error("\(here): enum '\(enumName)' is not defined under enums: (\(defined) defined)")
            }
        }
        if let f = m["flags"] {
            try integerOnly("flags", f)
            let bits: Int
            switch type {
            case .integer(let width, _, _): bits = width * 8
            case .bits(let n): bits = n
            default: bits = 64
            }
            spec.flags = try flags(f, "\(here) flags", bits: bits, of: "the field")
        }
        if let u = m["unit"] {
            try measured("unit", u)
            spec.unit = try u.string("\(here) unit")
        }
        if let s = m["scale"] {
            try measured("scale", s)
            spec.scale = try s.double("\(here) scale")
        }
        if let o = m["offset"] {
            try measured("offset", o)
            spec.offset = try o.double("\(here) offset")
        }
        if let valid = m["valid"] {
            try integerOnly("valid", valid)
            spec.valid = try self.valid(valid, here, of: type)
        }
    }

    /// `valid:` of a field of `type`: one that no value of the type meets is refused.
    private func valid(_ v: YAMLValue, _ here: String, of type: FieldSpec.FieldType) throws(DefinitionError)
        -> FieldSpec.Valid
    {
        let range = Self.values(of: type)
        let shown = range.map { "\(MessageValue.number($0.lowerBound))…\(MessageValue.number($0.upperBound))" } ?? ""
        if v.isScalar { return .anyOf([try v.integer("\(here) valid")]) }
        let m = try v.fields("\(here) valid", allowed: ["min", "max", "any-of"])
        if let list = m["any-of"] {
            var values: [Int64] = []
            for item in try list.items("\(here) valid any-of") {
                values.append(try item.integer("\(here) valid any-of"))
            }
            guard !values.isEmpty else { throw list.error("\(here): valid any-of is empty, so no value is valid") }
            if let range, !values.contains(where: { range.contains(Double($0)) }) {
                throw list.error("\(here): valid any-of holds no value of the field's \(shown), so no value is valid")
            }
            return .anyOf(values)
        }
        let (lo, hi) = (try m["min"]?.double("\(here) valid min"), try m["max"]?.double("\(here) valid max"))
        if let lo, let hi, lo > hi {
            throw v.error(
                "\(here): valid min \(MessageValue.number(lo)) is above max \(MessageValue.number(hi)), so no value is valid"
            )
        }
        if let range, (lo.map { $0 > range.upperBound } ?? false) || (hi.map { $0 < range.lowerBound } ?? false) {
            let asked = "\(lo.map(MessageValue.number) ?? "")…\(hi.map(MessageValue.number) ?? "")"
            throw v.error("\(here): valid \(asked) is outside the field's \(shown), so no value is valid")
        }
        return .range(min: lo, max: hi)
    }

    /// The values an integer field of `type` can hold.
    static func values(of type: FieldSpec.FieldType) -> ClosedRange<Double>? {
        let bits: Int
        let signed: Bool
        switch type {
        case .integer(let width, let s, _): (bits, signed) = (width * 8, s)
        case .bits(let n): (bits, signed) = (n, false)
        case .varint(let s): (bits, signed) = (64, s)
        default: return nil
        }
        let span = Double(sign: .plus, exponent: signed ? bits - 1 : bits, significand: 1)
        return signed ? -span...(span - 1) : 0...(span - 1)
    }

    mutating func fieldType(_ t: YAMLValue, _ here: String, size: FieldSpec.Size?, known: Set<String>)
        throws(DefinitionError) -> FieldSpec.FieldType
    {
        if !t.isScalar {
            if let schema = try protobufType(t, here, size: size) { return schema }
            if let list = try tlvType(t, here, size: size, known: known) { return list }
            let m = try t.fields("\(here) type", allowed: ["switch-on", "cases"])
            let on = try m.required("switch-on", "\(here) type").string("\(here) switch-on")
            guard known.contains(on) || checkingUnused else {
                throw t.error(
                    "\(here): switch-on refers to '\(on)', which is not an earlier integer field (earlier: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", ")))"
                )
            }
            var cases: [Int64: FieldSpec.FieldType] = [:]
            var fallback: FieldSpec.FieldType?
            let casesNode = try m.required("cases", "\(here) type")
            var spelt = Spellings("\(here) cases")
            for (k, v) in try casesNode.mapping("\(here) cases") {
                let caseType = try fieldType(v, here, size: size, known: known)
                if k == "_" {
                    fallback = caseType
                } else if let value = YAMLValue.parseInteger(k) {
                    try spelt.add(value, k, v)
                    cases[value] = caseType
                } else {
                    throw casesNode.error("\(here): case '\(k)' is not an integer or _")
                }
            }
            return .switchOn(field: on, cases: cases, fallback: fallback)
        }
        let name = try t.string("\(here) type")
        if Self.integerTypes.contains(name) {
            guard size == nil else { throw t.error("\(here): an integer type (\(name)) takes no size") }
            let width = Int(name.dropFirst().prefix { $0.isNumber }) ?? 1
            let big = name.hasSuffix("be") || (!name.hasSuffix("le") && bigEndian)
            return .integer(width: width, signed: name.hasPrefix("s"), bigEndian: big)
        }
        if let payload = try payloadType(name, t, here, size: size) { return payload }
        switch name {
        case "bytes": return .bytes(size ?? .eos)
        case "str": return .string(size ?? .eos)
        case "protobuf": return .protobuf(size ?? .eos)
        default:
            guard typeSources[name] != nil else {
                let declared = typeSources.keys.sorted()
                throw t.error(
                    "\(here): unknown type '\(name)'; expected \(Self.typeNames)"
                        + (declared.isEmpty ? "" : ", or a type from types: (\(declared.joined(separator: ", ")))"))
            }
            return .group(try namedType(name, t, known: known))
        }
    }

    /// A named type, read once; a type that contains itself is an error, not a loop.
    mutating func namedType(_ name: String, _ at: YAMLValue, known: Set<String>) throws(DefinitionError)
        -> [FieldSpec]
    {
        if let done = types[name] { return done }
        guard !resolving.contains(name) else {
            throw at.error("type '\(name)' contains itself (\((resolving + [name]).joined(separator: " → ")))")
        }
        guard resolving.count < DefinitionParser.maxNesting, let source = typeSources[name] else {
            throw at.error("types nested deeper than \(DefinitionParser.maxNesting)")
        }
        resolving.append(name)
        defer { resolving.removeLast() }
        let m = try source.fields("type \(name)", allowed: ["seq", "doc"])
        let specs = try seq(m.required("seq", "type \(name)"), "type \(name)", known: known)
        types[name] = specs
        return specs
    }
}
