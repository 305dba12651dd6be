/// One field of a message payload, as a definition describes it (Kaitai Struct's `seq` entries,
/// kept small): a name, a type, and how to present the value.
struct FieldSpec: Sendable {
    indirect enum FieldType: Sendable {
        /// u1, u2le, s4be, …
        case integer(width: Int, signed: Bool, bigEndian: Bool)
        case bytes(Size)
        /// UTF-8 text.
        case string(Size)
        /// A named type from `types:`.
        case group([FieldSpec])
        /// `switch-on` an earlier integer field; `fallback` is the `_` case (else the rest as bytes).
        case switchOn(field: String, cases: [Int64: FieldType], fallback: FieldType?)
    }

    enum Size: Sendable {
        case fixed(Int)
        /// The value of an earlier integer field.
        case field(String)
        /// To the end of the payload (or of the enclosing sized group).
        case eos
    }

    enum Repeat: Sendable {
        case eos
        case count(Int)
        case field(String)
    }

    enum Valid: Sendable {
        case range(min: Double?, max: Double?)
        case anyOf([Int64])
    }

    var name: String
    var type: FieldType
    var repeats: Repeat?
    /// The enum's name and its values.
    var enumeration: (name: String, values: [Int64: String])?
    /// Bit masks and their names.
    var flags: [(mask: UInt64, name: String)]?
    var unit: String?
    var scale: Double?
    var offset: Double?
    var valid: Valid?
}
