import BTLensCore

/// Payload types beyond fixed integers, bytes and text, named as Kaitai Struct's `.ksy` names them
/// where it has them: `vlq` (Kaitai's `vlq_base128_le`), `f4le`, `strz`, `pad-right`.
extension DefinitionParser.Parser {
    static let floatTypes = ["f2le", "f2be", "f4le", "f4be", "f8le", "f8be", "f2", "f4", "f8"]
    static let timeUnits: [String: FieldSpec.TimeUnit] = [
        "unix-s": .seconds, "unix-ms": .milliseconds, "unix-us": .microseconds,
    ]

    /// A varint, float or `strz` type by its name; nil for other names.
    func payloadType(_ name: String, _ t: YAMLValue, _ here: String, size: FieldSpec.Size?) throws(DefinitionError)
        -> FieldSpec.FieldType?
    {
        let varints = ["vlq": false, "varint": false, "svarint": true]
        if let signed = varints[name] {
            guard size == nil else { throw t.error("\(here): a varint (\(name)) takes no size") }
            return .varint(signed: signed)
        }
        if name.hasPrefix("b"), let n = Int(name.dropFirst()), (1...64).contains(n), name == "b\(n)" {
            guard size == nil else { throw t.error("\(here): a bit field (\(name)) takes no size") }
            return .bits(n)
        }
        if Self.floatTypes.contains(name) {
            guard size == nil else { throw t.error("\(here): a float type (\(name)) takes no size") }
            let big = name.hasSuffix("be") || (!name.hasSuffix("le") && bigEndian)
            return .float(width: Int(name.dropFirst().prefix { $0.isNumber }) ?? 4, bigEndian: big)
        }
        return name == "strz" ? .stringZ(size) : nil
    }

    /// `time` (for integers) and `pad-right` (for `str` with a size).
    func payloadAttributes(
        _ m: YAMLFields, of type: FieldSpec.FieldType, size: FieldSpec.Size?, into spec: inout FieldSpec.Attributes,
        _ here: String
    ) throws(DefinitionError) {
        if let t = m["time"] {
            guard type.isInteger else { throw t.error("\(here): 'time' applies to integer fields only") }
            let text = try t.string("\(here) time")
            guard let unit = Self.timeUnits[text] else {
                throw t.error("\(here): time '\(text)'; expected unix-s, unix-ms or unix-us")
            }
            guard spec.enumNames == nil, spec.flags == nil, spec.unit == nil, spec.scale == nil, spec.offset == nil
            else { throw t.error("\(here): 'time' is shown as a time: it takes no enum, flags, unit, scale or offset") }
            spec.time = unit
        }
        if type.isBits, case .eos? = spec.repeats, let r = m["repeat"] {
            throw r.error("\(here): a bit field repeats a count or a field's value, not to eos")
        }
        if let p = m["pad-right"] {
            guard case .string = type, size != nil else {
                throw p.error("\(here): 'pad-right' applies to str fields with a size only")
            }
            let byte = try p.integer("\(here) pad-right")
            guard (0...255).contains(byte) else { throw p.error("\(here): pad-right \(byte) is not a byte (0…255)") }
            spec.padRight = UInt8(byte)
        }
    }
}

extension FieldSpec.FieldType {
    /// A fixed-size integer or a varint: what sizes, repeats and switches may name, and what takes
    /// an enum, flags or `valid`.
    var isInteger: Bool {
        switch self {
        case .integer, .varint, .bits: return true
        default: return false
        }
    }

    var isBits: Bool {
        if case .bits = self { return true }
        return false
    }

    var isFloat: Bool {
        if case .float = self { return true }
        return false
    }
}
