import BTLensCore
import BTLensDissect
import Foundation

/// Decodes a payload with a list of `FieldSpec`s through the checked reader. It never traps: a
/// payload too short for its fields stops with `a5.payload.short`, leftover bytes are
/// `a5.payload.extra`, values outside `valid` are `a5.field.invalid`.
struct FieldDecoder {
    /// Repeats stop here, whatever the definition or the payload says.
    static let repeatLimit = 4096

    let message: String
    /// False where only the message's name and problems are read (`stats`): values are checked
    /// (sizes, `valid`) but not built, and nothing is put into the sink.
    let keepsValues: Bool
    var problems: [Diagnostic] = []
    var reader: ByteReader
    /// The values of the integer fields a size, repeat or switch names (`FieldSpec.isReferenced`).
    private var scope: [String: Int64] = [:]
    /// The byte bit fields are read from and how many of its bits are still unread.
    var heldBits: (byte: UInt8, left: Int) = (0, 0)
    /// Values produced so far: a message stops at `DefinitionCost.maxItems`, so that decoding stays
    /// linear in the bytes however a loaded definition nests its repeats.
    private var produced = 0

    init(message: String, payload: [UInt8], keepsValues: Bool = true) {
        self.message = message
        self.keepsValues = keepsValues
        reader = ByteReader(payload)
    }

    /// Decodes every field into `sink`, then reports what is left over. After a short read, the
    /// fields before the one it stopped in are kept, so the timeline still shows them.
    mutating func decode<Sink: FieldSink & ~Copyable>(_ specs: [FieldSpec], into sink: inout Sink) {
        // By index, not `for … in`: iterating would copy each spec (and retain all it holds).
        for i in specs.indices {
            let mark = sink.mark()
            do throws(Stop) {
                try field(specs[i], &sink)
            } catch {
                sink.rewind(to: mark)
                break
            }
        }
        if problems.isEmpty, reader.remaining > 0 {
            let n = reader.remaining
            problems.append(
                Diagnostic(
                    DissectorDiagnostics.payloadExtra,
                    "\(message): \(n) byte\(n == 1 ? "" : "s") after the last field (payload offset \(reader.offset))",
                    fields: [("extra_bytes", .int(n)), ("offset", .int(reader.offset))]))
        }
    }

    struct Stop: Error {}

    /// One field, its key and value put into `sink` when values are kept.
    private mutating func field<Sink: FieldSink & ~Copyable>(_ spec: FieldSpec, _ sink: inout Sink) throws(Stop) {
        if keepsValues { sink.name(spec.encodedName) }
        guard let r = spec.repeats else { return try single(spec, spec.type, &sink) }
        let count: Int?
        switch r {
        case .eos: count = nil
        case .count(let n): count = n
        case .field(let f): count = Int(clamping: scope[f] ?? 0)
        }
        if keepsValues { sink.beginList() }
        var n = 0
        while n < min(count ?? Int.max, Self.repeatLimit) {
            if count == nil && reader.isAtEnd { break }
            let before = reader.offset
            try single(spec, spec.type, &sink)
            n += 1
            if count == nil && reader.offset == before { break }
        }
        if keepsValues { sink.endList() }
    }

    mutating func single<Sink: FieldSink & ~Copyable>(
        _ spec: FieldSpec, _ type: FieldSpec.FieldType, _ sink: inout Sink
    ) throws(Stop) {
        if !type.isBits { heldBits.left = 0 }
        produced += 1
        guard produced <= DefinitionCost.maxItems else {
            problems.append(
                Diagnostic(
                    DissectorDiagnostics.itemLimit,
                    "\(message): \(DefinitionCost.maxItems) values decoded at payload offset \(reader.offset); a message may produce no more",
                    fields: [("offset", .int(reader.offset))]))
            throw Stop()
        }
        switch type {
        case .integer(let width, let signed, let bigEndian):
            let raw = Self.unsigned(try read(spec.name, width), bigEndian: bigEndian)
            let value: Int64
            if signed, width < 8 {
                let shift = UInt64(64 - 8 * width)
                value = Int64(bitPattern: raw << shift) >> Int64(shift)
            } else {
                value = Int64(bitPattern: raw)
            }
            integer(spec, value: value, raw: raw, signed: signed, &sink)
        case .varint(let signed):
            let raw = try varint(spec.name)
            // Zigzag (protobuf.dev, "Encoding": sintN): 0, -1, 1, -2 … as 0, 1, 2, 3 …
            let value = signed ? Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1) : Int64(bitPattern: raw)
            integer(spec, value: value, raw: signed ? UInt64(bitPattern: value) : raw, signed: signed, &sink)
        case .bits(let n):
            let raw = try bits(spec.name, n)
            integer(spec, value: Int64(bitPattern: raw), raw: raw, signed: false, &sink)
        case .float(let width, let bigEndian):
            let raw = Self.unsigned(try read(spec.name, width), bigEndian: bigEndian)
            if keepsValues { sink.value(Self.float(raw, width: width, spec)) }
        case .stringZ(let size):
            try stringZ(spec, size, &sink)
        case .bytes(let size):
            let bytes = try read(spec.name, length(size))
            if keepsValues { sink.raw(bytes) }
        case .string(let size):
            let bytes = try read(spec.name, length(size))
            guard keepsValues else { return }
            guard let pad = spec.padRight else { return sink.value(.string(String(decoding: bytes, as: UTF8.self))) }
            text(bytes[..<(bytes.lastIndex { $0 != pad }.map { $0 + 1 } ?? bytes.startIndex)], &sink)
        case .protobuf(let size):
            let start = reader.offset
            let bytes = try read(spec.name, length(size))
            let (records, failure) = ProtobufRaw.records(bytes)
            if let failure {
                problems.append(
                    Diagnostic(
                        DissectorDiagnostics.fieldInvalid,
                        "\(message): \(spec.name) is not a protobuf message at payload offset \(start + failure.offset): \(failure.reason)",
                        fields: [("field", .string(spec.name)), ("offset", .int(start + failure.offset))]))
            }
            if keepsValues { ProtobufRaw.put(records, into: &sink, depth: 1) }
        case .protobufSchema(let schemas, let name, let size):
            let bytes = try read(spec.name, length(size))
            var schema = ProtobufSchemaReader(schemas: schemas, keepsValues: keepsValues)
            schema.message(name, bytes, depth: 1, &sink)
            for failure in schema.failures {
                invalid(spec.name, at: failure.offset, "(\(name)): \(failure.reason),")
            }
        case .group(let specs):
            // A group sees the fields before it; what it names is not seen after it.
            let outer = scope
            defer { scope = outer }
            if keepsValues { sink.beginGroup() }
            for i in specs.indices { try field(specs[i], &sink) }
            if keepsValues { sink.endGroup() }
        case .tlv(let tlv, let size):
            try items(spec, tlv, length(size), &sink)
        case .switchOn(let on, let cases, let fallback):
            let key = scope[on] ?? 0
            try single(spec, cases[key] ?? fallback ?? .bytes(.eos), &sink)
        }
    }

    /// An integer's value kept for the fields after it, checked, and put as its enum, flags, time
    /// or measure says.
    private mutating func integer<Sink: FieldSink & ~Copyable>(
        _ spec: FieldSpec, value: Int64, raw: UInt64, signed: Bool, _ sink: inout Sink
    ) {
        if spec.isReferenced { scope[spec.name] = value }
        check(spec, value)
        if let unit = spec.time { return time(spec, value, unit, &sink) }
        guard keepsValues else { return }
        if let names = spec.enumNames {
            // Named values were encoded once; an unnamed one is its number.
            guard let name = names[value] else { return sink.value(.enumerated(nil, raw: value)) }
            sink.enumerated(name, raw: value)
        } else {
            sink.value(present(spec, value: value, raw: raw, signed: signed))
        }
    }

    func length(_ size: FieldSpec.Size) -> Int {
        switch size {
        case .fixed(let n): return n
        case .field(let f): return Int(clamping: max(0, scope[f] ?? 0))
        case .eos: return reader.remaining
        }
    }

    mutating func read(_ name: String, _ n: Int) throws(Stop) -> ArraySlice<UInt8> {
        do {
            return try reader.bytes(n)
        } catch {
            problems.append(
                Diagnostic(
                    DissectorDiagnostics.payloadShort,
                    "\(message): field \(name) needs \(error.needed) byte\(error.needed == 1 ? "" : "s") at payload offset \(error.offset), \(error.available) left",
                    fields: [
                        ("field", .string(name)), ("offset", .int(error.offset)),
                        ("needed", .int(error.needed)), ("available", .int(error.available)),
                    ]))
            throw Stop()
        }
    }

    /// A value that is not an enum's.
    private func present(_ spec: borrowing FieldSpec, value: Int64, raw: UInt64, signed: Bool) -> MessageValue {
        if let flags = spec.flags {
            var rest = raw
            var names: [String] = []
            for (mask, name) in flags where raw & mask == mask && mask != 0 {
                names.append(name)
                rest &= ~mask
            }
            return .flags(names, unnamed: rest)
        }
        if spec.scale != nil || spec.offset != nil {
            let base = signed ? Double(value) : Double(raw)
            return .measure(Self.decimal(base * (spec.scale ?? 1) + (spec.offset ?? 0)), unit: spec.unit)
        }
        // An integer with a unit alone stays an integer: a 64-bit count in nanoseconds is exact.
        if let unit = spec.unit { return signed ? .intUnit(value, unit: unit) : .uintUnit(raw, unit: unit) }
        return signed ? .int(value) : .uint(raw)
    }

    /// `x` to 15 significant digits: 6005 × 0.01 is 60.050000000000004 in binary, and shows (and
    /// filters) as the 60.05 the definition means.
    static func decimal(_ x: Double) -> Double {
        guard x != 0, x.isFinite else { return x }
        let digits = 14 - Int(log10(abs(x)).rounded(.down))
        guard (1...22).contains(digits) else { return x }
        let m = pow(10, Double(digits))
        return (x * m).rounded() / m
    }

    private mutating func check(_ spec: borrowing FieldSpec, _ value: Int64) {
        guard let valid = spec.valid else { return }
        let ok: Bool
        let expected: String
        switch valid {
        case .range(let lo, let hi):
            ok = (lo.map { Double(value) >= $0 } ?? true) && (hi.map { Double(value) <= $0 } ?? true)
            expected = "\(lo.map(MessageValue.number) ?? "")…\(hi.map(MessageValue.number) ?? "")"
        case .anyOf(let values):
            ok = values.contains(value)
            expected = "one of " + values.map(String.init).joined(separator: ", ")
        }
        guard !ok else { return }
        problems.append(
            Diagnostic(
                DissectorDiagnostics.fieldInvalid, "\(message): \(spec.name) is \(value); expected \(expected)",
                fields: [("field", .string(spec.name)), ("value", .int(value))]))
    }
}
