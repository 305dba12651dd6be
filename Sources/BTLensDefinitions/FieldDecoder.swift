import BTLensCore
import BTLensDissect

/// Decodes a payload with a list of `FieldSpec`s through the checked reader. It never traps: a
/// payload too short for its fields stops with `a5.payload.short`, leftover bytes are
/// `a5.payload.extra`, values outside `valid` are `a5.field.invalid`.
struct FieldDecoder {
    /// Repeats stop here, whatever the definition or the payload says.
    static let repeatLimit = 4096

    let message: String
    var problems: [Diagnostic] = []
    private var reader: ByteReader

    init(message: String, payload: [UInt8]) {
        self.message = message
        reader = ByteReader(payload)
    }

    /// Decodes every field, then reports what is left over.
    mutating func decode(_ specs: [FieldSpec]) -> [MessageField] {
        var scope: [String: Int64] = [:]
        let fields = (try? seq(specs, scope: &scope)) ?? partial
        if problems.isEmpty, reader.remaining > 0 {
            let n = reader.remaining
            problems.append(
                Diagnostic(
                    DissectorDiagnostics.payloadExtra,
                    "\(message): \(n) byte\(n == 1 ? "" : "s") after the last field (payload offset \(reader.offset))",
                    fields: [("extra_bytes", .int(n)), ("offset", .int(reader.offset))]))
        }
        return fields
    }

    /// Fields decoded before a short read, kept so the timeline still shows them.
    private var partial: [MessageField] = []

    private struct Stop: Error {}

    private mutating func seq(_ specs: [FieldSpec], scope: inout [String: Int64]) throws(Stop) -> [MessageField] {
        var out: [MessageField] = []
        let top = scope.isEmpty
        for spec in specs {
            let value = try field(spec, scope: &scope)
            out.append(MessageField(spec.name, value))
            if top { partial = out }
        }
        return out
    }

    private mutating func field(_ spec: FieldSpec, scope: inout [String: Int64]) throws(Stop) -> MessageValue {
        guard let r = spec.repeats else { return try single(spec, spec.type, scope: &scope) }
        var items: [MessageValue] = []
        let count: Int?
        switch r {
        case .eos: count = nil
        case .count(let n): count = n
        case .field(let f): count = Int(clamping: scope[f] ?? 0)
        }
        while items.count < min(count ?? Int.max, Self.repeatLimit) {
            if count == nil && reader.isAtEnd { break }
            let before = reader.offset
            items.append(try single(spec, spec.type, scope: &scope))
            if count == nil && reader.offset == before { break }
        }
        return .list(items)
    }

    private mutating func single(_ spec: FieldSpec, _ type: FieldSpec.FieldType, scope: inout [String: Int64])
        throws(Stop) -> MessageValue
    {
        switch type {
        case .integer(let width, let signed, let bigEndian):
            let bytes = try read(spec.name, width)
            var raw: UInt64 = 0
            for i in 0..<width { raw = raw << 8 | UInt64(bytes[bytes.startIndex + (bigEndian ? i : width - 1 - i)]) }
            let value: Int64
            if signed, width < 8 {
                let shift = UInt64(64 - 8 * width)
                value = Int64(bitPattern: raw << shift) >> Int64(shift)
            } else {
                value = Int64(bitPattern: raw)
            }
            scope[spec.name] = value
            check(spec, value)
            return present(spec, value: value, raw: raw, signed: signed)
        case .bytes(let size):
            return .bytes(Array(try read(spec.name, length(size, scope))))
        case .string(let size):
            return .string(String(decoding: try read(spec.name, length(size, scope)), as: UTF8.self))
        case .group(let specs):
            var inner = scope
            return .group(try seq(specs, scope: &inner))
        case .switchOn(let on, let cases, let fallback):
            let key = scope[on] ?? 0
            return try single(spec, cases[key] ?? fallback ?? .bytes(.eos), scope: &scope)
        }
    }

    private func length(_ size: FieldSpec.Size, _ scope: [String: Int64]) -> Int {
        switch size {
        case .fixed(let n): return n
        case .field(let f): return Int(clamping: max(0, scope[f] ?? 0))
        case .eos: return reader.remaining
        }
    }

    private mutating func read(_ name: String, _ n: Int) throws(Stop) -> ArraySlice<UInt8> {
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

    private func present(_ spec: FieldSpec, value: Int64, raw: UInt64, signed: Bool) -> MessageValue {
        if let e = spec.enumeration { return .enumerated(e.values[value], raw: value) }
        if let flags = spec.flags {
            var rest = raw
            var names: [String] = []
            for (mask, name) in flags where raw & mask == mask && mask != 0 {
                names.append(name)
                rest &= ~mask
            }
            return .flags(names, unnamed: rest)
        }
        if spec.scale != nil || spec.offset != nil || spec.unit != nil {
            let base = signed ? Double(value) : Double(raw)
            return .measure(base * (spec.scale ?? 1) + (spec.offset ?? 0), unit: spec.unit)
        }
        return signed ? .int(value) : .uint(raw)
    }

    private mutating func check(_ spec: FieldSpec, _ value: Int64) {
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
