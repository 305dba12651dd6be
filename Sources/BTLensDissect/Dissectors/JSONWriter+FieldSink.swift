import BTLensCore

/// A message's fields written as JSON as they are decoded (`MessageDissector.decode(_:into:)`):
/// the JSONL renderer's way, with no values built for a line. Groups are objects, lists arrays,
/// enums their names (or numbers), flags arrays of names, measures with a unit objects.
extension JSONWriter: FieldSink {
    public mutating func name(_ name: String) { key(named: name) }
    public mutating func name(_ name: borrowing EncodedName) { key(encoded: name.json) }
    public mutating func enumerated(_ name: borrowing EncodedName, raw: Int64) { string(encoded: name.json) }

    public mutating func value(_ value: MessageValue) {
        switch value {
        case .int(let i): int(i)
        case .uint(let u): int(u)
        case .measure(let d, let unit):
            guard let unit else { return number(d) }
            beginObject()
            key("value")
            number(d)
            field("unit", unit)
            endObject()
        case .intUnit(let i, let unit):
            beginObject()
            key("value")
            int(i)
            field("unit", unit)
            endObject()
        case .uintUnit(let u, let unit):
            beginObject()
            key("value")
            int(u)
            field("unit", unit)
            endObject()
        case .string(let s): string(s)
        case .bytes(let b): hex(b)
        case .enumerated(let name, let raw): if let name { string(name) } else { int(raw) }
        case .flags(let names, let unnamed):
            beginArray()
            for n in names { string(n) }
            if unnamed != 0 { string(Hex.value(unnamed, width: 2)) }
            endArray()
        case .group, .list: put(value)
        }
    }

    public mutating func raw(_ bytes: ArraySlice<UInt8>) { hex(bytes) }
    public mutating func beginGroup() { beginObject() }
    public mutating func endGroup() { endObject() }
    public mutating func beginList() { beginArray() }
    public mutating func endList() { endArray() }
}
