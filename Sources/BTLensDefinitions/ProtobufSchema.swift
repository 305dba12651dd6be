import BTLensCore
import BTLensDissect

/// The messages of a definition's `protobufs:`, by name: Protocol Buffers read with a schema
/// (protobuf.dev, "Encoding"), field names and types from the definition. A message field names
/// its message, looked up while decoding, so a schema may refer to itself; nesting is read
/// `ProtobufRaw.depthLimit` deep.
final class ProtobufSchemas: Sendable {
    enum FieldType: String, Sendable, CaseIterable {
        case int32, int64, uint32, uint64, sint32, sint64, bool, `enum`
        case fixed32, fixed64, sfixed32, sfixed64, float, double, string, bytes, message

        /// The wire type its values are sent with, unpacked.
        var wire: UInt64 {
            switch self {
            case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enum: return 0
            case .fixed64, .sfixed64, .double: return 1
            case .string, .bytes, .message: return 2
            case .fixed32, .sfixed32, .float: return 5
            }
        }
    }

    struct Field: Sendable {
        let name: String
        let type: FieldType
        let repeated: Bool
        let enumNames: EnumNames?
        /// For `message`: the message's name in `protobufs:`.
        let message: String?
    }

    let messages: [String: [UInt64: Field]]

    init(_ messages: [String: [UInt64: Field]]) { self.messages = messages }
}

/// One schema message read into a sink, its problems kept as `ProtobufRaw.Failure`s at payload
/// offsets (slices keep the payload's indices: a slice's start is its payload offset).
struct ProtobufSchemaReader {
    let schemas: ProtobufSchemas
    let keepsValues: Bool
    var failures: [ProtobufRaw.Failure] = []

    mutating func message<Sink: FieldSink & ~Copyable>(
        _ name: String, _ bytes: ArraySlice<UInt8>, depth: Int, _ sink: inout Sink
    ) {
        let (records, failure) = ProtobufRaw.records(bytes)
        if let failure { failures.append(.init(offset: bytes.startIndex + failure.offset, reason: failure.reason)) }
        let fields = schemas.messages[name] ?? [:]
        var order: [UInt64] = []
        var byNumber: [UInt64: [ProtobufRaw.Record]] = [:]
        for r in records {
            if byNumber[r.number] == nil { order.append(r.number) }
            byNumber[r.number, default: []].append(r)
        }
        if keepsValues { sink.beginGroup() }
        for number in order {
            let list = byNumber[number] ?? []
            guard let field = fields[number] else {
                if keepsValues {
                    sink.name(String(number))
                    ProtobufRaw.put(values: list.map(\.value), into: &sink, depth: depth)
                }
                continue
            }
            let values = list.flatMap { unpacked(field, $0) }
            if keepsValues { sink.name(field.name) }
            if keepsValues, field.repeated || values.count != 1 { sink.beginList() }
            for v in values { value(field, v, depth: depth, at: bytes.startIndex, &sink) }
            if keepsValues, field.repeated || values.count != 1 { sink.endList() }
        }
        if keepsValues { sink.endGroup() }
    }

    /// A record's values: one, or a packed repeated scalar's (protobuf.dev, "Packed Repeated
    /// Fields"): varints, or fixed values of 4 or 8 bytes, one after another in a length-delimited
    /// record.
    private mutating func unpacked(_ f: ProtobufSchemas.Field, _ r: ProtobufRaw.Record) -> [ProtobufRaw.Record] {
        guard case .bytes(let b) = r.value, f.type.wire != 2 else { return [r] }
        var reader = ByteReader(b)
        var out: [ProtobufRaw.Record] = []
        while !reader.isAtEnd, out.count < FieldDecoder.repeatLimit {
            let at = b.startIndex + reader.offset
            do throws(ProtobufRaw.Failure) {
                let v = try ProtobufRaw.value(f.type.wire, &reader, number: r.number)
                out.append(ProtobufRaw.Record(number: r.number, value: v, offset: r.offset))
            } catch {
                failures.append(.init(offset: at, reason: "packed field \(r.number) (\(f.name)): \(error.reason)"))
                break
            }
        }
        return out
    }

    private mutating func value<Sink: FieldSink & ~Copyable>(
        _ f: ProtobufSchemas.Field, _ r: ProtobufRaw.Record, depth: Int, at base: Int, _ sink: inout Sink
    ) {
        let wire: UInt64
        switch r.value {
        case .varint: wire = 0
        case .fixed64: wire = 1
        case .bytes: wire = 2
        case .fixed32: wire = 5
        }
        guard wire == f.type.wire else {
            failures.append(
                .init(
                    offset: base + r.offset,
                    reason: "field \(r.number) (\(f.name)) has wire type \(wire); expected \(f.type.wire)"))
            if keepsValues { ProtobufRaw.put(values: [r.value], into: &sink, depth: depth) }
            return
        }
        switch r.value {
        case .bytes(let b):
            if f.type == .message, depth < ProtobufRaw.depthLimit {
                return message(f.message ?? "", b, depth: depth + 1, &sink)
            }
            guard keepsValues else { return }
            if f.type == .string, let s = String(validating: b, as: UTF8.self) { return sink.value(.string(s)) }
            sink.raw(b)
        case .varint(let x), .fixed64(let x):
            if keepsValues { sink.value(Self.scalar(f, x)) }
        case .fixed32(let x):
            if keepsValues { sink.value(Self.scalar(f, UInt64(x))) }
        }
    }

    /// A scalar as its type reads it: 32-bit types from the low 32 bits, sint zigzag-decoded.
    static func scalar(_ f: ProtobufSchemas.Field, _ x: UInt64) -> MessageValue {
        let low = UInt32(truncatingIfNeeded: x)
        switch f.type {
        case .int32, .sfixed32: return .int(Int64(Int32(bitPattern: low)))
        case .int64, .sfixed64: return .int(Int64(bitPattern: x))
        case .sint32: return .int(Int64(Int32(bitPattern: low >> 1) ^ -Int32(bitPattern: low & 1)))
        case .sint64: return .int(Int64(bitPattern: x >> 1) ^ -Int64(bitPattern: x & 1))
        case .uint32, .fixed32: return .uint(UInt64(low))
        case .bool: return .enumerated(x != 0 ? "true" : "false", raw: x != 0 ? 1 : 0)
        case .enum:
            let raw = Int64(Int32(bitPattern: low))
            return .enumerated(f.enumNames?[raw]?.text, raw: raw)
        case .float, .double:
            let d = FieldDecoder.ieee(x, width: f.type == .float ? 4 : 8)
            return d.isFinite ? .measure(d, unit: nil) : FieldDecoder.nonFinite(d)
        case .uint64, .fixed64, .string, .bytes, .message: return .uint(x)
        }
    }
}
