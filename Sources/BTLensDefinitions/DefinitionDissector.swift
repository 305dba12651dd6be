import BTLensCore
import BTLensDissect
import Foundation

/// A vendor protocol read from a definition file: a `MessageDissector` like any Swift one.
public final class DefinitionDissector: MessageDissector {
    struct MessageDef: Sendable {
        var id: UInt16?
        var name: String
        /// Nil: either direction.
        var from: Direction?
        var kind: MessageKind?
        var fields: [FieldSpec]
        var line: Int?
        /// `encrypted: true`: its payload is shown as encrypted bytes, never decoded.
        var encrypted = false
        /// Set when the definition is compiled (`DefinitionDissector.init`).
        var layout: PayloadLayout? = nil
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
    /// The line of `protocol:`, where a clash of names with another file is said.
    let protocolLine: Int?
    /// For values with no command byte: which message a characteristic carries.
    let valueMessages: [BluetoothUUID: Int]
    private let byCommand: [UInt16: [Int]]
    /// `lookup` for one-byte commands, by `command << 1 | direction` (0 sent, 1 received): the
    /// message index, or -1. Built once, so most frames find their message without hashing.
    private let byByteCommand: [Int32]
    /// `payloadsRead(from:)`, made once.
    private let payloadsRead: (sent: PayloadPolicy, received: PayloadPolicy)

    init(
        name: String, title: String?, origin: String, bindings: [DissectorBinding], framing: Framing,
        pairing: PairingRule?, examples: [Example], messages: [MessageDef], flagNames: [(UInt8, String)],
        valueMessages: [BluetoothUUID: Int], protocolLine: Int? = nil
    ) {
        self.protocolLine = protocolLine
        self.name = name
        self.title = title
        self.origin = origin
        self.bindings = bindings
        self.framing = framing
        self.pairing = pairing
        self.examples = examples
        let referenced = messages.reduce(into: Set<String>()) { $0.formUnion(FieldSpec.references($1.fields)) }
        for m in messages { FieldSpec.markReferenced(m.fields, referenced) }
        let compiled = messages.map { m in
            var m = m
            m.layout = PayloadLayout(m.fields)
            return m
        }
        self.messages = compiled
        self.flagNames = flagNames
        self.valueMessages = valueMessages
        var index: [UInt16: [Int]] = [:]
        for (i, m) in messages.enumerated() { if let id = m.id { index[id, default: []].append(i) } }
        byCommand = index
        var table = [Int32](repeating: -1, count: 512)
        for command in 0..<256 {
            let candidates = index[UInt16(command)] ?? []
            for (slot, direction) in [(0, Direction.sent), (1, .received)] {
                if let i = Self.choose(candidates, direction, messages) { table[command << 1 | slot] = Int32(i) }
            }
        }
        byByteCommand = table
        // Only a message whose layout depends on its bytes is read without its fields.
        func reads(_ slot: Int) -> PayloadPolicy {
            PayloadPolicy { command in
                let i = table[Int(command) << 1 | slot]
                return i >= 0 && compiled[Int(i)].layout == nil
            }
        }
        // A token in the payload is read from every message.
        payloadsRead = pairing?.path.isEmpty ?? true ? (reads(0), reads(1)) : (.keepAll, .keepAll)
    }

    public var messageCount: Int { messages.count }
    /// Whether any message has a command id: a stream of frames can name nothing otherwise.
    public var hasCommandMessages: Bool { messages.contains { $0.id != nil } }

    public var wholeValues: [(message: String, characteristic: BluetoothUUID)] {
        valueMessages.map { (messages[$0.value].name, $0.key) }.sorted { $0.message < $1.message }
    }

    public func decode(_ message: Message) -> DecodedMessage {
        guard message.wantsFields else {
            var none = NoFields()
            return decode(message, into: &none)
        }
        var tree = FieldTree()
        var out = decode(message, into: &tree)
        out.fields = tree.fields
        return out
    }

    /// Specialized for the JSONL writer, the sink of every frame a timeline shows: its calls are
    /// then direct, not through the protocol's witnesses (the generic entry checks for it).
    @_specialize(where Sink == JSONWriter)
    public func decode<Sink: FieldSink & ~Copyable>(_ message: Message, into sink: inout Sink) -> DecodedMessage {
        var out = DecodedMessage()
        if message.wantsFields, let flags = message.flags, flags != 0 {
            out.flagNames = flagNames.filter { flags & $0.mask == $0.mask && $0.mask != 0 }.map(\.name)
        }
        out.encrypted = isEncrypted(flags: message.flags)
        guard let i = lookup(message) else { return out }
        out.name = messages[i].name
        out.kind = messages[i].kind
        if out.encrypted || messages[i].encrypted {
            out.encrypted = true
            return out
        }
        let layout = messages[i].layout
        if !message.wantsFields, let layout, layout.accepts(message.payloadCount) { return out }
        // A payload not kept (`payloadsRead`) is one whose fields' sizes and validity do not depend on
        // its bytes: any bytes of its length find the same problems.
        let payload =
            message.payload.count == message.payloadCount || layout == nil
            ? message.payload : [UInt8](repeating: 0, count: message.payloadCount)
        var decoder = FieldDecoder(message: messages[i].name, payload: payload, keepsValues: message.wantsFields)
        decoder.decode(messages[i].fields, into: &sink)
        out.problems = decoder.problems
        return out
    }

    public func payloadsRead(from direction: Direction) -> PayloadPolicy {
        direction == .sent ? payloadsRead.sent : payloadsRead.received
    }

    /// Decided by the payload's length where the message's layout allows (`PayloadLayout`).
    public func verdict(
        command: UInt16?, from direction: Direction, characteristic: BluetoothUUID?, payloadCount: Int
    ) -> MessageVerdict? {
        guard let i = lookup(command, direction, characteristic) else { return MessageVerdict(name: nil, kind: nil) }
        guard let layout = messages[i].layout, layout.accepts(payloadCount) else { return nil }
        return MessageVerdict(name: messages[i].name, kind: messages[i].kind)
    }

    /// The index of the message that `message` is: by command and direction (a message for either
    /// direction when none is for this one), or by characteristic for values without a command.
    private func lookup(_ message: Message) -> Int? {
        lookup(message.command, message.direction, message.characteristic)
    }

    private func lookup(_ command: UInt16?, _ direction: Direction, _ characteristic: BluetoothUUID?) -> Int? {
        guard let command else { return characteristic.flatMap { valueMessages[$0] } }
        if command < 256 {
            let i = byByteCommand[Int(command) << 1 | (direction == .sent ? 0 : 1)]
            return i < 0 ? nil : Int(i)
        }
        return Self.choose(byCommand[command] ?? [], direction, messages)
    }

    /// Of the messages with one command, the one for `direction`, else one for either direction.
    private static func choose(_ candidates: [Int], _ direction: Direction, _ messages: [MessageDef]) -> Int? {
        candidates.first { messages[$0].from == direction } ?? candidates.first { messages[$0].from == nil }
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
            return Self.accepts(e, value) ? nil : "'\(value)', expected '\(e)'"
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
        case .intUnit(let i, _): return e == String(i)
        case .uintUnit(let u, _): return e == String(u)
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
