import BTLensCore
import BTLensDissect

/// Protocol Buffers' wire format read without a schema, as `protoc --decode_raw` reads it
/// (protobuf.dev, "Encoding"): each record is a varint tag, `number << 3 | wire type`, then a
/// varint (0), 8 bytes (1), a varint length and that many bytes (2) or 4 bytes (5). Groups (3, 4)
/// are deprecated and not read. Read through the checked reader; a message is at most
/// `fieldLimit` records and nests at most `depthLimit` deep.
enum ProtobufRaw {
    static let depthLimit = 16
    static let fieldLimit = FieldDecoder.repeatLimit

    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        case bytes(ArraySlice<UInt8>)
    }

    struct Record {
        var number: UInt64
        var value: Value
        /// Where its tag is, from the start of the bytes read.
        var offset = 0
    }

    /// Where and why the bytes stop being a message.
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// The records of `bytes`, and the failure that stopped reading before their end, if one did.
    static func records(_ bytes: ArraySlice<UInt8>) -> (records: [Record], failure: Failure?) {
        var reader = ByteReader(bytes)
        var records: [Record] = []
        while !reader.isAtEnd {
            let start = reader.offset
            guard records.count < fieldLimit else {
                return (records, Failure(offset: start, reason: "more than \(fieldLimit) fields"))
            }
            do throws(Failure) {
                var r = try record(&reader)
                r.offset = start
                records.append(r)
            } catch {
                return (records, error)
            }
        }
        return (records, nil)
    }

    private static func record(_ reader: inout ByteReader) throws(Failure) -> Record {
        let start = reader.offset
        let tag = try varint(&reader)
        let number = tag >> 3
        guard number > 0, number < 1 << 29 else {
            throw Failure(offset: start, reason: "field number \(number); expected 1 to 536870911")
        }
        let wire = tag & 7
        guard [0, 1, 2, 5].contains(wire) else {
            throw Failure(offset: start, reason: "field \(number) has wire type \(wire)")
        }
        return Record(number: number, value: try value(wire, &reader, number: number))
    }

    /// A value of wire type 0, 1, 2 or 5; a packed repeated field's values are read so too.
    static func value(_ wire: UInt64, _ reader: inout ByteReader, number: UInt64) throws(Failure) -> Value {
        var length: UInt64
        switch wire {
        case 0: return .varint(try varint(&reader))
        case 1: length = 8
        case 5: length = 4
        default: length = try varint(&reader)
        }
        guard length <= UInt64(reader.remaining), let bytes = try? reader.bytes(Int(length)) else {
            throw Failure(
                offset: reader.offset, reason: "field \(number) needs \(length) bytes, \(reader.remaining) left")
        }
        // Fixed values are little-endian (protobuf.dev, "Encoding": I64 and I32).
        let fixed = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch wire {
        case 1: return .fixed64(fixed)
        case 5: return .fixed32(UInt32(truncatingIfNeeded: fixed))
        default: return .bytes(bytes)
        }
    }

    /// A base-128 varint, low group first, at most 10 bytes.
    private static func varint(_ reader: inout ByteReader) throws(Failure) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<10 {
            guard let b = try? reader.u8() else { throw Failure(offset: reader.offset, reason: "a varint is cut off") }
            value |= UInt64(b & 0x7f) << (7 * UInt64(i))
            if b & 0x80 == 0 { return value }
        }
        throw Failure(offset: reader.offset, reason: "a varint is longer than 10 bytes")
    }

    /// The message's records into `sink` as a group keyed by field number, in order of first
    /// appearance; a number met more than once (a repeated field) becomes a list.
    static func put<Sink: FieldSink & ~Copyable>(_ records: [Record], into sink: inout Sink, depth: Int) {
        var order: [UInt64] = []
        var values: [UInt64: [Value]] = [:]
        for r in records {
            if values[r.number] == nil { order.append(r.number) }
            values[r.number, default: []].append(r.value)
        }
        sink.beginGroup()
        for number in order {
            sink.name(String(number))
            put(values: values[number] ?? [], into: &sink, depth: depth)
        }
        sink.endGroup()
    }

    /// One field number's values: the value, or a list when there are several.
    static func put<Sink: FieldSink & ~Copyable>(values list: [Value], into sink: inout Sink, depth: Int) {
        if list.count == 1, let only = list.first { return put(only, into: &sink, depth: depth) }
        sink.beginList()
        for v in list { put(v, into: &sink, depth: depth) }
        sink.endList()
    }

    /// A length-delimited value is a nested message when its bytes read whole as one, else text
    /// when they are UTF-8 with no ASCII control character but tab and line ends, else bytes: `protoc --decode_raw`'s order.
    private static func put<Sink: FieldSink & ~Copyable>(_ value: Value, into sink: inout Sink, depth: Int) {
        switch value {
        case .varint(let v), .fixed64(let v): sink.value(.uint(v))
        case .fixed32(let v): sink.value(.uint(UInt64(v)))
        case .bytes(let b):
            if depth < depthLimit, !b.isEmpty, case (let inner, nil) = records(b) {
                return put(inner, into: &sink, depth: depth + 1)
            }
            if let text = String(validating: b, as: UTF8.self),
                text.unicodeScalars.allSatisfy({
                    ($0.value >= 0x20 && $0.value != 0x7f) || "\t\n\r".unicodeScalars.contains($0)
                })
            {
                return sink.value(.string(text))
            }
            sink.raw(b)
        }
    }
}
