import BTLensCore
import BTLensDissect
import Foundation

/// A vendor protocol read from a definition file: a `MessageDissector` like any Swift one.
public struct DefinitionDissector: MessageDissector {
    struct MessageDef: Sendable {
        var id: UInt16?
        var name: String
        /// Nil: either direction.
        var from: Direction?
        var kind: MessageKind?
        var fields: [FieldSpec]
        var line: Int?
    }

    /// A hex message and what the definition must make of it (replayed by `btlens dissectors check`).
    public struct Example: Sendable {
        public var bytes: [UInt8]
        public var direction: Direction
        public var characteristic: BluetoothUUID?
        public var expectedName: String?
        public var expectedFields: [(String, YAMLExpectation)]
        public var expectedFlags: [String]?
        public var line: Int?
    }

    public let name: String
    public let title: String?
    public let origin: String
    public let bindings: [DissectorBinding]
    public let framing: Framing
    public let pairing: PairingRule?
    public let examples: [Example]
    let messages: [MessageDef]
    let flagNames: [(mask: UInt8, name: String)]
    /// For values with no command byte: which message a characteristic carries.
    let valueMessages: [BluetoothUUID: Int]
    private let byCommand: [UInt16: [Int]]

    init(
        name: String, title: String?, origin: String, bindings: [DissectorBinding], framing: Framing,
        pairing: PairingRule?, examples: [Example], messages: [MessageDef], flagNames: [(UInt8, String)],
        valueMessages: [BluetoothUUID: Int]
    ) {
        self.name = name
        self.title = title
        self.origin = origin
        self.bindings = bindings
        self.framing = framing
        self.pairing = pairing
        self.examples = examples
        self.messages = messages
        self.flagNames = flagNames
        self.valueMessages = valueMessages
        var index: [UInt16: [Int]] = [:]
        for (i, m) in messages.enumerated() { if let id = m.id { index[id, default: []].append(i) } }
        byCommand = index
    }

    public var messageCount: Int { messages.count }

    public func decode(_ message: Message) -> DecodedMessage {
        var out = DecodedMessage()
        if let flags = message.flags {
            out.flagNames = flagNames.filter { flags & $0.mask == $0.mask && $0.mask != 0 }.map(\.name)
        }
        guard let def = lookup(message) else { return out }
        out.name = def.name
        out.kind = def.kind
        var decoder = FieldDecoder(message: def.name, payload: message.payload)
        out.fields = decoder.decode(def.fields)
        out.problems = decoder.problems
        return out
    }

    private func lookup(_ message: Message) -> MessageDef? {
        guard let command = message.command else {
            return message.characteristic.flatMap { valueMessages[$0] }.map { messages[$0] }
        }
        let candidates = byCommand[command] ?? []
        return
            (candidates.first { messages[$0].from == message.direction }
            ?? candidates.first { messages[$0].from == nil })
            .map { messages[$0] }
    }
}

/// An expected field value in an example: a scalar compared with the decoded value's text form,
/// or a mapping for a group.
public indirect enum YAMLExpectation: Sendable {
    case scalar(String)
    case group([(String, YAMLExpectation)])

    /// Why `value` does not match, or nil when it does.
    func mismatch(_ value: MessageValue) -> String? {
        switch (self, value) {
        case (.scalar(let e), _):
            return Self.accepts(e, value) ? nil : "'\(value)'"
        case (.group(let expected), .group(let fields)):
            for (name, e) in expected {
                guard let f = fields.first(where: { $0.name == name }) else { return "no field '\(name)'" }
                if let m = e.mismatch(f.value) { return "\(name): \(m)" }
            }
            return nil
        case (.group, _):
            return "'\(value)', not a group"
        }
    }

    private static func accepts(_ e: String, _ value: MessageValue) -> Bool {
        if e == value.description { return true }
        switch value {
        case .string(let s): return e == s
        case .measure(let d, _): return e == MessageValue.number(d) || Double(e) == d
        case .enumerated(let name, let raw): return e == name || YAMLValue.parseInteger(e) == raw
        case .int(let i): return YAMLValue.parseInteger(e) == i
        case .uint(let u): return YAMLValue.parseInteger(e).map { $0 >= 0 && UInt64($0) == u } ?? false
        case .bytes(let b): return Hex.bytes(e) == b
        case .flags(let names, let unnamed):
            return unnamed == 0 && e.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == names
        case .group, .list: return false
        }
    }
}
