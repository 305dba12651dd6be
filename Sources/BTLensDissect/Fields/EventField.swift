import BTLensCore

/// What a key holds in JSON.
public enum FieldType: String, Sendable {
    case integer, number, string, boolean
    /// Bytes, as a lowercase hex string.
    case bytes
    /// ISO 8601 text in JSON; microseconds to a filter.
    case time
    /// A UUID as lowercase hex text (`fff3`, 128 bits with dashes).
    case uuid
    case array, object
}

/// A value an event holds under a key, as the JSONL line writes it: a number, a string, bytes (hex
/// in JSON), true or false, several values (an array), or a group of values (an object, which only
/// a test of presence reads).
public enum FieldReading: Sendable {
    case int(Int64)
    case number(Double)
    case string(String)
    case bytes(ArraySlice<UInt8>)
    case bool(Bool)
    case list([FieldReading])
    case object
}

/// One key of an event type's JSONL object, declared once, as Wireshark's `hf_register_info`
/// declares a field: the display filter reads events through it, and tests check the JSONL
/// writer, docs/jsonl.md and the Wireshark export against it.
public struct EventField: Sendable {
    public let key: String
    public let type: FieldType
    /// One line: what the value means.
    public let meaning: String
    /// Written as JSON's `null` when there is no value, instead of leaving the key out.
    public let nullable: Bool
    /// The names a nested name may follow the key with (`services.name`); nil when any may (a
    /// frame's `fields.*`, which its definition names).
    public let members: [String]?
    /// The value in an event of the field's type, nil where the line has no such key; `rest` is
    /// what follows the key in a nested name (`name` in `services.name`).
    public let read: @Sendable (Event, ArraySlice<String>) -> FieldReading?

    init(
        _ key: String, _ type: FieldType, _ meaning: String, nullable: Bool = false, members: [String]? = [],
        read: @escaping @Sendable (Event, ArraySlice<String>) -> FieldReading?
    ) {
        self.key = key
        self.type = type
        self.meaning = meaning
        self.nullable = nullable
        self.members = members
        self.read = read
    }

    /// The event's connection handle, as every type on a connection writes it.
    static let connection = EventField("connection", .integer, "the HCI connection handle") { e, _ in
        e.connection.map { .int(Int64($0)) }
    }

    /// A parameter the decoder puts in the event's list of them, declared where its type matters.
    static func parameter(_ key: String, _ type: FieldType, _ meaning: String) -> EventField {
        EventField(key, type, meaning) { e, rest in
            guard rest.isEmpty, let v = EventFields.parameters(of: e)?.first(where: { $0.0 == key })?.1 else {
                return nil
            }
            return FieldReading(v)
        }
    }
}

/// Declares the fields of one kind of event body: `Body` is what `extract` finds in an event of it.
struct FieldDeclarer<Body>: Sendable {
    let extract: @Sendable (Event) -> Body?

    func callAsFunction(
        _ key: String, _ type: FieldType, _ meaning: String,
        _ read: @escaping @Sendable (Body) -> FieldReading?
    ) -> EventField {
        let extract = extract
        return EventField(key, type, meaning) { e, _ in extract(e).flatMap(read) }
    }

    /// A field whose value has named parts (`services.name`, `fields.preset`).
    func nested(
        _ key: String, _ type: FieldType, _ meaning: String, members: [String]?,
        _ read: @escaping @Sendable (Body, ArraySlice<String>) -> FieldReading?
    ) -> EventField {
        let extract = extract
        return EventField(key, type, meaning, members: members) { e, rest in extract(e).flatMap { read($0, rest) } }
    }
}

extension FieldReading {
    /// A packet's or diagnostic's parameter as the line writes it.
    public init(_ v: FieldValue) {
        switch v {
        case .int(let i), .hex(let i, _): self = .int(i)
        case .string(let s): self = .string(s)
        case .bool(let b): self = .bool(b)
        case .bytes(let b): self = .bytes(b[...])
        case .decimal(let units, let scale):
            var power = 1.0
            for _ in 0..<max(0, min(scale, 18)) { power *= 10 }
            self = .number(Double(units) / power)
        }
    }

    static func integer<T: BinaryInteger>(_ v: T?) -> FieldReading? { v.map { .int(Int64($0)) } }
    static func text(_ v: String?) -> FieldReading? { v.map { .string($0) } }
}
