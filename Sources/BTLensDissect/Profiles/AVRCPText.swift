import BTLensCore

/// Strings a peer sends (track metadata, player and folder names, a search), decoded safely: UTF-8
/// with invalid bytes replaced, at most `limit` bytes kept (cut at a character's start), the rest
/// counted in `NAME_bytes_cut`. Control characters are kept as sent: the renderers escape them.
enum AVRCPText {
    static let limit = 256

    /// The string and how many of its bytes were not kept.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (String, Int) {
        var end = bytes.startIndex + min(bytes.count, limit)
        if end < bytes.endIndex {
            // Back off to the first byte of the character the bound falls in (at most 3 bytes).
            var back = 0
            while back < 3, end > bytes.startIndex, bytes[end] & 0xc0 == 0x80 {
                end -= 1
                back += 1
            }
        }
        return (String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self), bytes.endIndex - end)
    }

    /// `name` and, when cut, `name_bytes_cut`.
    static func fields(_ name: String, _ bytes: ArraySlice<UInt8>) -> [(String, FieldValue)] {
        let (text, cut) = decode(bytes)
        return cut == 0 ? [(name, .string(text))] : [(name, .string(text)), (name + "_bytes_cut", .int(cut))]
    }

    /// A name inside a list string, quoted, its quotes and backslashes escaped.
    static func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        let (text, cut) = decode(bytes)
        var out = "\""
        for c in text.unicodeScalars {
            if c == "\"" || c == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out + (cut == 0 ? "\"" : "\"…(+\(cut) bytes)")
    }

    /// Attribute value entries (AVRCP 1.6.2 §6.6.1 GetElementAttributes response, §6.10.4.3
    /// GetItemAttributes response): id u32, character set u16, length u16, value. Each attribute
    /// is a field named after it (`title`, `artist`, …); a repeated id keeps its first value.
    static func attributeValues(_ count: Int, _ r: inout ByteReader, into fields: inout [(String, FieldValue)])
        throws(ShortRead)
    {
        for _ in 0..<count {
            let id = try r.u32be()
            let charset = try r.u16be()
            let length = Int(try r.u16be())
            let value = try r.bytes(length)
            let name = AVRCPNames.mediaAttribute(id)
            guard !fields.contains(where: { $0.0 == name }) else { continue }
            fields += Self.fields(name, value)
            // 0x006A is UTF-8 (IANA MIBenum), which AVRCP requires unless the CT said otherwise.
            if charset != 0x006a { fields.append((name + "_charset", .hex(charset))) }
        }
    }
}
