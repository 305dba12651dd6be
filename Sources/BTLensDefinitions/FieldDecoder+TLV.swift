import BTLensCore
import BTLensDissect

/// Tag-length-value lists: `{tlv: {tag: u1, length: u2le, values: {0x01: battery, _: bytes}}}`.
extension FieldDecoder {
    /// The items in the next `size` bytes, at most `repeatLimit`, each `{tag=… value=…}`. A value
    /// is read within its length, as Kaitai Struct reads a type with a `size`: what it leaves of
    /// its length is skipped, and it cannot read past it.
    mutating func items<Sink: FieldSink & ~Copyable>(
        _ spec: FieldSpec, _ tlv: FieldSpec.TLV, _ size: Int, _ sink: inout Sink
    ) throws(Stop) {
        let end = reader.offset + size
        _ = try read(spec.name, size)
        let outer = reader
        defer { reader = outer }
        reader = ByteReader(outer.bytes[outer.bytes.startIndex..<(outer.bytes.startIndex + end)])
        _ = try? reader.skip(end - size)
        if keepsValues { sink.beginList() }
        var n = 0
        while !reader.isAtEnd, n < Self.repeatLimit {
            let tag = Self.unsigned(try read(spec.name, tlv.tag.width), bigEndian: tlv.tag.bigEndian)
            let length = Int(Self.unsigned(try read(spec.name, tlv.length.width), bigEndian: tlv.length.bigEndian))
            let valueEnd = reader.offset + length
            guard length <= reader.remaining else {
                _ = try read(spec.name, length)
                break
            }
            if keepsValues {
                sink.beginGroup()
                sink.name("tag")
                let raw = Int64(bitPattern: tag)
                if let name = tlv.tagNames?[raw] { sink.enumerated(name, raw: raw) } else { sink.value(.uint(tag)) }
                sink.name("value")
            }
            let list = reader
            reader = ByteReader(list.bytes[list.bytes.startIndex..<(list.bytes.startIndex + valueEnd)])
            _ = try? reader.skip(valueEnd - length)
            let type = tlv.values[Int64(bitPattern: tag)] ?? tlv.fallback ?? .bytes(.eos)
            // A value starts at a byte, bit fields included.
            heldBits.left = 0
            try single(spec, type, &sink)
            reader = list
            _ = try? reader.skip(length)
            if keepsValues { sink.endGroup() }
            n += 1
        }
        if keepsValues { sink.endList() }
    }
}
