public enum Severity: Int, Sendable, Comparable, CaseIterable {
    case note = 0
    case warning = 1
    case error = 2

    public var name: String {
        switch self {
        case .note: return "note"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    public init?(name: String) {
        guard let s = Severity.allCases.first(where: { $0.name == name }) else { return nil }
        self = s
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }
}

/// A kind of diagnostic, declared once next to the code that raises it (like Wireshark's expert info).
public struct DiagnosticKind: Sendable, Hashable {
    /// Stable dotted id, e.g. `a5.checksum.bad`. Never renamed: tickets and scripts rely on it.
    public let id: String
    public let severity: Severity
    /// One line on what it means, for `btlens diagnostics`.
    public let summary: String

    public init(_ id: String, _ severity: Severity, _ summary: String) {
        self.id = id
        self.severity = severity
        self.summary = summary
    }

    public static func == (a: DiagnosticKind, b: DiagnosticKind) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A typed value attached to an event or diagnostic; keeps JSON output exact.
public enum FieldValue: Sendable, Equatable {
    case int(Int64)
    /// An integer shown in hex in text (`0x0040`); a plain number in JSON.
    case hex(Int64, digits: Int)
    case string(String)
    case bool(Bool)
    /// Bytes, rendered as lowercase hex.
    case bytes([UInt8])
    /// A fixed-point number, `units / 10^scale` (37.50 ms is `.decimal(3750, scale: 2)`): a number in
    /// JSON and in text, never a string, and exact where a Double would not be.
    case decimal(Int64, scale: Int)

    public static func int<T: BinaryInteger>(_ v: T) -> FieldValue { .int(Int64(truncatingIfNeeded: v)) }
    /// `units / 10^scale` written with `scale` decimals: "37.50".
    public static func decimalText(_ units: Int64, scale: Int) -> String {
        var power: Int64 = 1
        for _ in 0..<max(0, min(scale, 18)) { power *= 10 }
        let magnitude = units.magnitude
        let whole = String(magnitude / UInt64(power))
        let fraction = String(magnitude % UInt64(power))
        let sign = units < 0 ? "-" : ""
        guard power > 1 else { return sign + whole }
        return sign + whole + "." + String(repeating: "0", count: scale - fraction.count) + fraction
    }

    public static func hex<T: FixedWidthInteger>(_ v: T) -> FieldValue {
        .hex(Int64(truncatingIfNeeded: v), digits: T.bitWidth / 4)
    }
}

/// A record and its time: where something in a capture is.
public struct RecordPlace: Sendable, Equatable {
    public var record: Int
    public var time: Timestamp
    public init(record: Int, time: Timestamp) {
        self.record = record
        self.time = time
    }
}

/// One diagnostic raised while decoding: what was expected and what was found, and where.
public struct Diagnostic: Sendable, Equatable {
    public var kind: DiagnosticKind
    /// Severity, normally the kind's.
    public var severity: Severity
    public var message: String
    /// Named values, in a fixed order (the JSON contract names some of them).
    public var fields: [(String, FieldValue)]
    /// Byte offset of the problem inside the record's HCI packet, when known.
    public var packetOffset: Int?
    /// Bytes of the capture that this problem left undecoded (for the byte accounting in stats).
    public var undecodedBytes = 0

    public init(
        _ kind: DiagnosticKind, _ message: String, fields: [(String, FieldValue)] = [], packetOffset: Int? = nil
    ) {
        self.kind = kind
        self.severity = kind.severity
        self.message = message
        self.fields = fields
        self.packetOffset = packetOffset
    }

    public var id: String { kind.id }

    public func field(_ name: String) -> FieldValue? { fields.first { $0.0 == name }?.1 }

    /// Where the problem began, when an earlier record than the one that revealed it (the bytes a
    /// resync skipped, the start of a frame cut off): the event is put there, and the record where it
    /// was detected becomes its `detected_record`. Kept in `fields` until then: a stored place would
    /// make every diagnostic larger, and a capture reader's every result has room for one.
    public var began: RecordPlace? {
        get {
            guard case .int(let record)? = field(Self.beganRecord), case .int(let time)? = field(Self.beganTime) else {
                return nil
            }
            return RecordPlace(record: Int(record), time: Timestamp(microseconds: time))
        }
        set {
            fields.removeAll { $0.0 == Self.beganRecord || $0.0 == Self.beganTime }
            guard let p = newValue else { return }
            fields += [(Self.beganRecord, .int(p.record)), (Self.beganTime, .int(p.time.microseconds))]
        }
    }
    private static let beganRecord = "began_record", beganTime = "began_time_us"

    public static func == (a: Diagnostic, b: Diagnostic) -> Bool {
        a.kind == b.kind && a.severity == b.severity && a.message == b.message
            && a.packetOffset == b.packetOffset && a.fields.elementsEqual(b.fields) { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}
