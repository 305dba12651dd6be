import BTLensCore

/// A list of service capabilities (AVDTP 1.3 §8.21): each a category, a length (LOSC) and that
/// many bytes. Read for the categories' names, the first Media Codec and the content protection
/// types; the transport categories (Reporting, Recovery, Header Compression, Multiplexing) are named only.
struct AVDTPCapabilities {
    var categories: [UInt8] = []
    var codec: AVDTPCodec?
    var contentProtection: [String] = []

    /// Reads to the end of `r`. Throws when a capability runs past the end, or a known codec's
    /// or content protection's element is shorter than it needs; offsets are `r`'s.
    init(_ r: inout ByteReader) throws(ShortRead) {
        while !r.isAtEnd {
            let category = try r.u8()
            let length = Int(try r.u8())
            let start = r.offset
            let bytes = try r.bytes(length)
            categories.append(category)
            do throws(ShortRead) {
                switch category {
                case 0x04:
                    var cp = ByteReader(bytes)
                    contentProtection.append(AVDTPNames.contentProtection(try cp.u16le()))
                case 0x07 where codec == nil:
                    codec = try AVDTPCodec(bytes)
                default: break
                }
            } catch {
                throw ShortRead(offset: start + error.offset, needed: error.needed, available: error.available)
            }
        }
    }

    var fields: [(String, FieldValue)] {
        let names = categories.map(AVDTPNames.serviceCategory).joined(separator: ", ")
        var fields: [(String, FieldValue)] = [("services", .string(names.isEmpty ? "none" : names))]
        if let codec {
            fields += [("media_type", .string(codec.mediaType)), ("codec", .string(codec.name))] + codec.fields
        }
        if !contentProtection.isEmpty {
            fields.append(("content_protection", .string(contentProtection.joined(separator: ", "))))
        }
        return fields
    }
}
