/// Where a dissector puts a message's fields as it reads them: kept as `MessageField`s
/// (`FieldTree`), or written straight into an output (the JSONL renderer's writer), so that a
/// frame shown as JSON builds no values on its way.
///
/// The calls nest as the fields do: `name` then one value, `beginGroup` … `endGroup` holding keyed
/// fields, `beginList` … `endList` holding values without keys.
public protocol FieldSink: ~Copyable {
    /// Where the output stands, to go back to when a field's bytes run short.
    associatedtype Mark
    /// The next field of the innermost group (or of the message); its value follows.
    mutating func name(_ name: String)
    /// A value that is not a group or a list.
    mutating func value(_ value: MessageValue)
    /// Bytes shown as they are.
    mutating func raw(_ bytes: ArraySlice<UInt8>)
    mutating func beginGroup()
    mutating func endGroup()
    mutating func beginList()
    mutating func endList()
    mutating func mark() -> Mark
    /// Forgets what was put since `mark`.
    mutating func rewind(to mark: Mark)
    /// `name(_:)` for a name whose JSON form was encoded once, where its definition was compiled.
    mutating func name(_ name: borrowing EncodedName)
    /// An enum value its definition names, so encoded: `value(.enumerated(name, raw:))` otherwise.
    mutating func enumerated(_ name: borrowing EncodedName, raw: Int64)
}

/// A name from a definition (a field's, an enum value's) with its JSON string form, encoded once
/// when the definition is compiled: a frame's JSONL line copies it instead of escaping it again.
public struct EncodedName: Sendable {
    public let text: String
    /// `"text"`, quoted and escaped.
    public let json: [UInt8]

    public init(text: String, json: [UInt8]) {
        self.text = text
        self.json = json
    }
}

extension FieldSink where Self: ~Copyable {
    public mutating func name(_ name: borrowing EncodedName) { self.name(name.text) }

    public mutating func enumerated(_ name: borrowing EncodedName, raw: Int64) {
        value(.enumerated(name.text, raw: raw))
    }

    /// A value of any kind, groups and lists walked.
    public mutating func put(_ value: MessageValue) {
        switch value {
        case .group(let fields):
            beginGroup()
            put(fields: fields)
            endGroup()
        case .list(let items):
            beginList()
            for item in items { put(item) }
            endList()
        case .bytes(let b): raw(b[...])
        default: self.value(value)
        }
    }

    /// Fields of the message, or of the group just begun.
    public mutating func put(fields: [MessageField]) {
        for f in fields {
            name(f.name)
            put(f.value)
        }
    }
}

/// Fields kept as values: what `MessageDissector.decode(_:)` returns.
public struct FieldTree: FieldSink {
    /// A group or list being filled, and the key it goes under (none in a list).
    private struct Open {
        var key: String?
        var group: [MessageField]?
        var list: [MessageValue] = []
    }

    /// The message's fields.
    public private(set) var fields: [MessageField] = []
    /// Inside the message, innermost last.
    private var open: [Open] = []
    private var pendingKey = ""

    public init() {}

    public mutating func name(_ name: String) { pendingKey = name }
    public mutating func value(_ value: MessageValue) { add(value, under: pendingKey) }
    public mutating func raw(_ bytes: ArraySlice<UInt8>) { add(.bytes(Array(bytes)), under: pendingKey) }
    public mutating func beginGroup() { open.append(Open(key: newKey, group: [])) }
    public mutating func beginList() { open.append(Open(key: newKey, group: nil)) }

    public mutating func endGroup() {
        guard let last = open.popLast() else { return }
        add(.group(last.group ?? []), under: last.key)
    }

    public mutating func endList() {
        guard let last = open.popLast() else { return }
        add(.list(last.list), under: last.key)
    }

    /// Marks are taken between the message's fields (a short field drops the whole of it).
    public mutating func mark() -> Int { fields.count }

    public mutating func rewind(to mark: Int) {
        open.removeAll()
        if mark < fields.count { fields.removeSubrange(mark...) }
    }

    /// The key of a group or list begun now: none inside a list.
    private var newKey: String? { open.last.map { $0.group == nil } == true ? nil : pendingKey }

    private mutating func add(_ value: MessageValue, under key: String?) {
        guard let last = open.indices.last else { return fields.append(MessageField(key ?? "", value)) }
        if open[last].group != nil {
            open[last].group?.append(MessageField(key ?? "", value))
        } else {
            open[last].list.append(value)
        }
    }
}

/// Where nothing is kept: a decode that only checks the payload (`stats`).
public struct NoFields: FieldSink {
    public init() {}
    public mutating func name(_ name: String) {}
    public mutating func value(_ value: MessageValue) {}
    public mutating func raw(_ bytes: ArraySlice<UInt8>) {}
    public mutating func beginGroup() {}
    public mutating func endGroup() {}
    public mutating func beginList() {}
    public mutating func endList() {}
    public mutating func mark() {}
    public mutating func rewind(to mark: Void) {}
}
