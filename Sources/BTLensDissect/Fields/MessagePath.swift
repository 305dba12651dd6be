import BTLensCore

/// A name under `fields.` followed through a decoded message, as the JSONL writer writes it (`JSONWriter+Fields.swift`):
/// groups are objects, lists arrays, a value with a unit `{"value":…,"unit":…}`, flags an array of
/// names, an enum its name (or its number when unnamed).
enum MessagePath {
    static func value(_ fields: [MessageField], _ path: ArraySlice<String>) -> FieldReading? {
        guard let first = path.first else { return .object }
        guard let f = fields.first(where: { $0.name == first }) else { return nil }
        return value(f.value, path.dropFirst())
    }

    /// A value with a unit: `{"value":…,"unit":…}` in JSON; compared whole, its value
    /// (`fields.level > 50` as `fields.level.value > 50`).
    private static func measured(_ value: FieldReading, _ unit: String, _ path: ArraySlice<String>) -> FieldReading? {
        switch path.first {
        case nil: return value
        case "value" where path.count == 1: return value
        case "unit" where path.count == 1: return .string(unit)
        default: return nil
        }
    }

    static func value(_ v: MessageValue, _ path: ArraySlice<String>) -> FieldReading? {
        switch v {
        case .group(let fields): return value(fields, path)
        case .list(let items):
            return .list(items.compactMap { value($0, path) })
        case .measure(let d, let unit?):
            return measured(.number(d), unit, path)
        case .intUnit(let i, let unit):
            return measured(.int(i), unit, path)
        case .uintUnit(let u, let unit):
            return measured(u <= UInt64(Int64.max) ? .int(Int64(u)) : .number(Double(u)), unit, path)
        default: break
        }
        guard path.isEmpty else { return nil }
        switch v {
        case .int(let i): return .int(i)
        case .uint(let u): return u <= UInt64(Int64.max) ? .int(Int64(u)) : .number(Double(u))
        case .measure(let d, _): return .number(d)
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b[...])
        case .enumerated(let name, let raw): return name.map { .string($0) } ?? .int(raw)
        case .flags(let names, let unnamed):
            var items = names.map { FieldReading.string($0) }
            if unnamed != 0 { items.append(.string(Hex.value(unnamed, width: 2))) }
            return .list(items)
        case .group, .list, .intUnit, .uintUnit: return nil
        }
    }
}
