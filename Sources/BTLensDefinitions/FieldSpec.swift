import BTLensCore
import BTLensDissect
import Synchronization

/// One field of a message payload, as a definition describes it (Kaitai Struct's `seq` entries,
/// kept small): a name, a type, and how to present the value.
///
/// A class, so that decoding a frame passes each field by one reference instead of copying all it
/// holds; immutable once parsed, but for `isReferenced`, which is marked once the whole definition is.
final class FieldSpec: Sendable {
    indirect enum FieldType: Sendable {
        /// u1, u2le, s4be, …
        case integer(width: Int, signed: Bool, bigEndian: Bool)
        /// `vlq`/`varint`: unsigned LEB128, at most 10 bytes; `svarint` zigzag-decoded (protobuf's sint64).
        case varint(signed: Bool)
        /// `b1` … `b64`: an unsigned integer of that many bits, most significant first; consecutive
        /// bit fields share bytes, and the next field of another type starts at the next byte.
        case bits(Int)
        /// `f2le` … `f8be`: IEEE 754 binary16, binary32 or binary64.
        case float(width: Int, bigEndian: Bool)
        case bytes(Size)
        /// UTF-8 text.
        case string(Size)
        /// `strz`: UTF-8 up to the first 0x00, which is consumed; within `size` bytes when given.
        case stringZ(Size?)
        /// A Protocol Buffers message read without a schema (`ProtobufRaw`).
        case protobuf(Size)
        /// A Protocol Buffers message read by the schema of `message` in the definition's `protobufs:`.
        case protobufSchema(ProtobufSchemas, message: String, Size)
        /// A named type from `types:`.
        case group([FieldSpec])
        /// Tag-length-value items to the end of the payload (or `size`), each value's type chosen by
        /// its tag.
        case tlv(TLV, Size)
        /// `switch-on` an earlier integer field; `fallback` is the `_` case (else the rest as bytes).
        case switchOn(field: String, cases: [Int64: FieldType], fallback: FieldType?)
    }

    struct TLV: Sendable {
        /// The tag's and the length's widths in bytes (1, 2 or 4) and byte orders.
        var tag: (width: Int, bigEndian: Bool)
        var length: (width: Int, bigEndian: Bool)
        var tagNames: EnumNames?
        var values: [Int64: FieldType]
        /// The `_` case; else a value is bytes.
        var fallback: FieldType?
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

    /// The unit of an integer counting time since 1970-01-01T00:00:00Z (`time: unix-ms`).
    enum TimeUnit: Int64, Sendable {
        case seconds = 1
        case milliseconds = 1000
        case microseconds = 1_000_000
    }

    enum Valid: Sendable {
        case range(min: Double?, max: Double?)
        case anyOf([Int64])
    }

    let name: String
    /// `name` with its JSON form, for the JSONL writer (`FieldSink.name(_:)`).
    let encodedName: EncodedName
    let type: FieldType
    /// Whether a later size, repeat or switch names this field, so its value is kept while decoding
    /// (`FieldSpec.markReferenced`): most definitions name none, and keep nothing.
    var isReferenced: Bool { referenced.load(ordering: .relaxed) }
    private let referenced = Atomic<Bool>(false)
    let repeats: Repeat?
    /// The values of the field's enum by number, encoded once (`FieldSink.enumerated`).
    let enumNames: EnumNames?
    /// Bit masks and their names.
    let flags: [(mask: UInt64, name: String)]?
    let unit: String?
    let scale: Double?
    let offset: Double?
    let valid: Valid?
    let time: TimeUnit?
    /// The byte a fixed-size `str` is padded with at its end (`pad-right: 0`), trimmed when shown.
    let padRight: UInt8?

    /// What a definition may say of a field beside its name and type.
    struct Attributes {
        var repeats: Repeat?
        var enumNames: EnumNames?
        var flags: [(mask: UInt64, name: String)]?
        var unit: String?
        var scale: Double?
        var offset: Double?
        var valid: Valid?
        var time: TimeUnit?
        var padRight: UInt8?
    }

    init(name: String, type: FieldType, _ a: Attributes = Attributes()) {
        self.name = name
        encodedName = EncodedName(name)
        self.type = type
        (repeats, enumNames, flags, unit, scale, offset, valid) = (
            a.repeats, a.enumNames, a.flags, a.unit, a.scale, a.offset, a.valid
        )
        (time, padRight) = (a.time, a.padRight)
    }
}

/// An enum's value names with their JSON forms, found by number: the first 256 in an array, as
/// most enums number from zero, the rest by hashing.
struct EnumNames: Sendable {
    private let small: [EncodedName?]
    private let large: [Int64: EncodedName]

    init(_ values: [Int64: String]) {
        var small = [EncodedName?](repeating: nil, count: 256)
        var large: [Int64: EncodedName] = [:]
        for (raw, name) in values {
            if (0..<256).contains(raw) { small[Int(raw)] = EncodedName(name) } else { large[raw] = EncodedName(name) }
        }
        self.small = small
        self.large = large
    }

    subscript(raw: Int64) -> EncodedName? { (0..<256).contains(raw) ? small[Int(raw)] : large[raw] }

    /// Every value and its name, by value.
    var all: [(raw: Int64, name: String)] {
        let listed = small.indices.compactMap { i in small[i].map { (Int64(i), $0.text) } }
        return (listed + large.map { ($0.key, $0.value.text) }).sorted { $0.raw < $1.raw }
    }
}

extension EncodedName {
    init(_ text: String) { self.init(text: text, json: JSONWriter.encode(text)) }
}

extension FieldSpec {
    /// The names that sizes, repeats and switches refer to, in `specs` and every group inside them.
    static func references(_ specs: [FieldSpec]) -> Set<String> {
        var names: Set<String> = []
        func visit(_ type: FieldType) {
            switch type {
            case .integer, .varint, .bits, .float: break
            case .bytes(let size), .string(let size), .protobuf(let size), .stringZ(let size?),
                .protobufSchema(_, _, let size):
                if case .field(let f) = size { names.insert(f) }
            case .stringZ(nil): break
            case .group(let inner): for s in inner { visit(s) }
            case .switchOn(let on, let cases, let fallback):
                names.insert(on)
                for c in cases.values { visit(c) }
                if let fallback { visit(fallback) }
            case .tlv(let tlv, let size):
                if case .field(let f) = size { names.insert(f) }
                for c in tlv.values.values { visit(c) }
                if let fallback = tlv.fallback { visit(fallback) }
            }
        }
        func visit(_ spec: FieldSpec) {
            if case .field(let f) = spec.repeats { names.insert(f) }
            visit(spec.type)
        }
        for s in specs { visit(s) }
        return names
    }

    /// Marks the fields whose values `names` holds, in `specs` and every group inside them. Named
    /// types are shared between messages: `names` are those of the whole definition.
    static func markReferenced(_ specs: [FieldSpec], _ names: Set<String>) {
        func mark(_ type: FieldType) {
            switch type {
            case .integer, .varint, .bits, .float, .bytes, .string, .stringZ, .protobuf, .protobufSchema: break
            case .group(let inner): markReferenced(inner, names)
            case .switchOn(_, let cases, let fallback):
                for c in cases.values { mark(c) }
                if let fallback { mark(fallback) }
            case .tlv(let tlv, _):
                for c in tlv.values.values { mark(c) }
                if let fallback = tlv.fallback { mark(fallback) }
            }
        }
        for spec in specs {
            spec.referenced.store(names.contains(spec.name), ordering: .relaxed)
            mark(spec.type)
        }
    }
}

/// The payload sizes a message's fields take without a problem, where sizes alone decide it: no
/// `valid` or `time`, no switch, no size or count read from another field. `stats` reads only a message's
/// problems, so a payload of such a size needs no walk through its fields.
struct PayloadLayout: Sendable, Equatable {
    /// The bytes the fixed fields take.
    var size = 0
    /// How many more bytes the last field may take (it runs to the end of the payload).
    var open = 0

    func accepts(_ count: Int) -> Bool { count >= size && count - size <= open }

    init(size: Int, open: Int) {
        self.size = size
        self.open = open
    }

    /// Nil when a field's size or validity depends on the bytes.
    init?(_ specs: [FieldSpec]) {
        for spec in specs {
            // Only the last field may run to the end: a field after it would find no bytes.
            guard open == 0, spec.valid == nil, spec.time == nil, add(spec) else { return nil }
        }
    }

    private mutating func add(_ spec: FieldSpec) -> Bool {
        switch (spec.type, spec.repeats) {
        case (.integer(let width, _, _), nil), (.float(let width, _), nil):
            size += width
        case (.integer(let width, _, _), .count(let n)?), (.float(let width, _), .count(let n)?):
            size += width * n
        case (.integer(1, _, _), .eos?):
            open = FieldDecoder.repeatLimit
        case (.bytes(.fixed(let n)), nil), (.string(.fixed(let n)), nil):
            size += n
        case (.bytes(.eos), nil), (.string(.eos), nil):
            open = Int.max
        case (.group(let inner), nil):
            for s in inner {
                guard open == 0, s.valid == nil, s.time == nil, add(s) else { return false }
            }
        default:
            return false
        }
        return true
    }
}
