import BTLensCore
import BTLensDissect

/// A field name resolved when the filter is compiled, through the declared fields
/// (`BTLensDissect.EventFields`): per event type, the declaration that reads it, the parameter
/// list to look it up in, or nothing.
struct Field {
    enum Reader {
        case declared(EventField)
        /// A parameter of a packet or diagnostic, looked up by the whole name.
        case parameter
        case none
    }

    /// The first component of the name (`fields` in `fields.preset`).
    let name: String
    /// The components after the first (`["preset"]`).
    let rest: [String]
    /// The whole name, as written.
    let path: String
    /// The key every event answers to (`type`, `record`, `time`, `direction`), whatever its type.
    let common: EventField?
    /// How each event type holds it, by `EventType.rawValue`.
    let readers: [Reader]

    init(_ path: String) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let name = parts.first ?? path
        self.name = name
        rest = Array(parts.dropFirst())
        self.path = path
        common = EventFields.common.first { $0.key == name }
        readers = EventType.allCases.map { t in
            if let f = EventFields.fields(of: t).first(where: { $0.key == name }) { return .declared(f) }
            return EventFields.hasParameters(t) ? .parameter : .none
        }
    }

    /// The declarations of the name, over every type.
    var declarations: [EventField] {
        readers.compactMap {
            if case .declared(let f) = $0 { return f }
            return nil
        }
    }

    /// Whether some type declares the name with a type `test` accepts.
    func isDeclared(_ test: (FieldType) -> Bool) -> Bool { declarations.contains { test($0.type) } }

    /// Whether every declaration of the name has a type `test` accepts (and there is one).
    func isOnly(_ test: (FieldType) -> Bool) -> Bool {
        let d = declarations
        return !d.isEmpty && d.allSatisfy { test($0.type) }
    }

    /// The event types that can hold the field, at most; nil when any can. A parameter may be in
    /// any packet's or diagnostic's list, but the ATT PDUs' are known (ATTDecoder+Parameters) and
    /// hold no `command`, `sequence`, `version` or `checksum`: `stats -Y 'command == 0x90'` counts
    /// ATT PDUs without sending them as events.
    var possibleTypes: TypeSet? {
        switch name {
        case "id", "severity", "packet_offset": return TypeSet(bits: EventType.diagnostic.bit)
        case "message": return TypeSet(bits: EventType.diagnostic.bit | EventType.log.bit)
        case "command_name", "fields", "flags_names", "response_to", "latency_ms", "checksum_ok", "payload",
            "framing", "fragments":
            return TypeSet(bits: EventType.a5.bit | EventType.message.bit)
        case "command", "sequence", "version", "checksum":
            return TypeSet(bits: EventType.allCases.reduce(0) { $0 | $1.bit } & ~EventType.att.bit)
        default: return nil
        }
    }

    /// What `e` holds under the name, as its JSONL line has it (docs/jsonl.md); nil for no key.
    /// `origin`: the first event's time, for `reltime`, the text timeline's seconds since it.
    func value(in e: Event, origin: Timestamp) -> FieldReading? {
        if let common { return common.read(e, rest[...]) }
        if name == "reltime" {
            // Hostile timestamps saturate at Int64's ends (the readers): no reltime rather than a trap.
            let (us, overflow) = e.timestamp.microseconds.subtractingReportingOverflow(origin.microseconds)
            return overflow ? nil : .number(Double(us) / 1_000_000)
        }
        switch readers[EventType(e).rawValue] {
        case .declared(let f): return f.read(e, rest[...])
        case .parameter:
            guard rest.isEmpty, let v = EventFields.parameters(of: e)?.first(where: { $0.0 == path })?.1 else {
                return nil
            }
            return FieldReading(v)
        case .none: return nil
        }
    }
}
