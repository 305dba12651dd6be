import BTLensCore

/// A vendor protocol on top of a characteristic, an EA session or an RFCOMM channel: where it binds,
/// how its bytes become messages, what each message means, and how responses find requests.
/// Swift dissectors conform directly; definition files (Dissectors/*.yaml) are turned into one.
public protocol MessageDissector: Sendable {
    /// Unique, e.g. `aurora-headphones`.
    var name: String { get }
    /// Where it came from: `built-in` or the definition file's path.
    var origin: String { get }
    var bindings: [DissectorBinding] { get }
    var framing: Framing { get }
    var pairing: PairingRule? { get }
    /// What one message says. Never traps: bytes it cannot decode become problems.
    func decode(_ message: Message) -> DecodedMessage
    /// The same, its fields put into `sink` as they are read instead of kept in the result: a
    /// frame's JSONL line is written so, with no values built.
    func decode<Sink: FieldSink & ~Copyable>(_ message: Message, into sink: inout Sink) -> DecodedMessage
    /// The one-byte commands from `direction` whose payload bytes `decode(_:)` without fields
    /// (`wantsFields: false`) reads, not only their length (`payloadCount`). `stats` does not copy
    /// out the payloads of the others.
    func payloadsRead(from direction: Direction) -> PayloadPolicy
    /// The value of the field the pairing rule matches by (`PairingRule.path`), as text, or nil
    /// when the message has none.
    func pairingToken(_ message: Message) -> String?
    /// What `stats` counts of a message when its command and payload length decide it: its name and
    /// kind, the message decoding without problems. Nil when its bytes or problems must be read:
    /// `decode(_:)` is called then.
    func verdict(
        command: UInt16?, from direction: Direction, characteristic: BluetoothUUID?, payloadCount: Int
    ) -> MessageVerdict?
    /// The whole-value messages its characteristic bindings name (`framing: value, message: X`),
    /// with the characteristic of each: `--decode-as att:HANDLE=NAME/X` reads a handle as it.
    var wholeValues: [(message: String, characteristic: BluetoothUUID)] { get }
}

/// A message's name and kind, read without decoding it (`MessageDissector.verdict`).
public struct MessageVerdict: Sendable, Equatable {
    public var name: String?
    public var kind: MessageKind?

    public init(name: String?, kind: MessageKind?) {
        self.name = name
        self.kind = kind
    }
}

extension MessageDissector {
    /// `decode(_:)`'s fields, put after the fact: for dissectors that build their values anyway.
    public func decode<Sink: FieldSink & ~Copyable>(_ message: Message, into sink: inout Sink) -> DecodedMessage {
        var decoded = decode(message)
        sink.put(fields: decoded.fields)
        decoded.fields = []
        return decoded
    }

    public func payloadsRead(from direction: Direction) -> PayloadPolicy { .keepAll }

    public var wholeValues: [(message: String, characteristic: BluetoothUUID)] { [] }

    public var valueMessageNames: [String] { wholeValues.map(\.message) }

    public func valueCharacteristic(named message: String) -> BluetoothUUID? {
        wholeValues.first { $0.message == message }?.characteristic
    }

    public func pairingToken(_ message: Message) -> String? { nil }

    public func verdict(
        command: UInt16?, from direction: Direction, characteristic: BluetoothUUID?, payloadCount: Int
    ) -> MessageVerdict? { nil }
}

/// How a stream's bytes become messages.
public enum Framing: Sendable, Equatable {
    /// A byte stream cut into frames.
    case frames(FrameFormat)
    /// Each ATT value is one message; with `commandByte`, its first byte says which; with
    /// `checksum`, its last bytes are a checksum (`ValueMessage`).
    case values(commandByte: Bool, checksum: FrameFormat.Checksum? = nil)
}

/// A message handed to a dissector.
public struct Message: Sendable {
    public var command: UInt16?
    public var flags: UInt8?
    /// Empty, where `payloadsRead` said the bytes are not read and `wantsFields` is false.
    public var payload: [UInt8]
    /// The payload's length, its bytes kept or not.
    public var payloadCount: Int
    public var direction: Direction
    /// The characteristic it travelled on, when known.
    public var characteristic: BluetoothUUID?
    /// False where only the name, kind and problems are read (`stats`): a dissector may then leave
    /// `fields` and `flagNames` empty, though it still checks the payload.
    public var wantsFields: Bool

    public init(
        command: UInt16?, flags: UInt8?, payload: [UInt8], payloadCount: Int? = nil, direction: Direction,
        characteristic: BluetoothUUID?, wantsFields: Bool = true
    ) {
        self.command = command
        self.flags = flags
        self.payload = payload
        self.payloadCount = payloadCount ?? payload.count
        self.direction = direction
        self.characteristic = characteristic
        self.wantsFields = wantsFields
    }
}

/// What a message is for pairing.
public enum MessageKind: String, Sendable {
    case request, response, event
}

/// What a dissector made of a message.
public struct DecodedMessage: Sendable, Equatable {
    public var name: String?
    public var kind: MessageKind?
    public var fields: [MessageField]
    public var flagNames: [String]
    /// Payload the fields did not account for, or fields the payload was too short for.
    public var problems: [Diagnostic]
    /// The payload is encrypted (`encrypted:` in a definition): shown as bytes, not decoded.
    public var encrypted = false

    public init(
        name: String? = nil, kind: MessageKind? = nil, fields: [MessageField] = [], flagNames: [String] = [],
        problems: [Diagnostic] = []
    ) {
        self.name = name
        self.kind = kind
        self.fields = fields
        self.flagNames = flagNames
        self.problems = problems
    }
}

/// One decoded field: a name and a value.
public struct MessageField: Sendable, Equatable {
    public var name: String
    public var value: MessageValue

    public init(_ name: String, _ value: MessageValue) {
        self.name = name
        self.value = value
    }
}

/// Not `indirect`: groups and lists hold their parts in arrays, so a value needs no box of its own.
public enum MessageValue: Sendable, Equatable {
    case int(Int64)
    case uint(UInt64)
    /// A scaled value, or one with a unit: `2.5 V`.
    case measure(Double, unit: String?)
    /// An integer with a unit and no scale, kept exact: `763989256864534528ns`.
    case intUnit(Int64, unit: String)
    case uintUnit(UInt64, unit: String)
    case string(String)
    case bytes([UInt8])
    /// An enum value: its name, or nil when the definition does not list the value.
    case enumerated(String?, raw: Int64)
    /// The names of the bits set; bits with no name are kept in `unnamed`.
    case flags([String], unnamed: UInt64)
    case group([MessageField])
    case list([MessageValue])
}

public enum DissectorDiagnostics {
    public static let unanswered = DiagnosticKind(
        "a5.request.unanswered", .warning,
        "A request got no response within the dissector's timeout (or before the connection or capture ended).")
    public static let unsolicited = DiagnosticKind(
        "a5.response.unsolicited", .warning, "A response that matches no outstanding request.")
    public static let payloadShort = DiagnosticKind(
        "a5.payload.short", .warning, "A message's payload ended before the fields its definition lists.")
    public static let payloadExtra = DiagnosticKind(
        "a5.payload.extra", .note, "A message's payload has bytes after the last field its definition lists.")
    public static let fieldInvalid = DiagnosticKind(
        "a5.field.invalid", .warning, "A field holds a value its definition does not allow (`valid`).")

    public static let itemLimit = DiagnosticKind(
        "a5.payload.items", .warning,
        "A message's fields produced as many values as a message may (65,536): the rest of its payload is not decoded.")

    public static let all = [unanswered, unsolicited, payloadShort, payloadExtra, fieldInvalid, itemLimit, mismatch]
}

extension MessageValue: CustomStringConvertible {
    /// `bassBoost`, `85%`, `"text"`, `{left=1 right=0}`, `[a,b]`: the form the text timeline and
    /// definition examples use.
    public var description: String {
        switch self {
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .measure(let d, let unit): return Self.number(d) + (unit ?? "")
        case .intUnit(let i, let unit): return String(i) + unit
        case .uintUnit(let u, let unit): return String(u) + unit
        case .string(let s): return "\"" + s + "\""
        case .bytes(let b): return b.isEmpty ? "\"\"" : Hex.string(b)
        case .enumerated(let name, let raw): return name ?? "\(raw)?"
        case .flags(let names, let unnamed):
            return "[" + (names + (unnamed != 0 ? [Hex.value(unnamed, width: 2)] : [])).joined(separator: ",") + "]"
        case .group(let fields): return "{" + MessageField.describe(fields) + "}"
        case .list(let items): return "[" + items.map(\.description).joined(separator: " ") + "]"
        }
    }

    /// Integral values without a fraction, others in Swift's shortest round-trip form.
    public static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}

extension MessageField {
    /// `preset=bassBoost level=85%`.
    public static func describe(_ fields: [MessageField]) -> String {
        fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
    }
}
