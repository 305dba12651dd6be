/// How the runtime reads varints, floats and `strz` (runtime.lua's `payload_single`).
extension WiresharkExport.FieldTable {
    /// 64 bits wide in Wireshark, as a varint holds up to 64.
    mutating func varintKind(_ f: FieldSpec, signed: Bool) -> String {
        let key = declare(f.name, "t = \"int\", w = 8, s = \(signed)\(Self.shown(f))")
        return "f = \(WiresharkExport.quoted(key)), k = \"varint\", s = \(signed)"
    }

    /// Declared as the narrowest integer that holds it. Its flags name no bits in Wireshark: a
    /// flag's mask applies to the bytes, not to the bits read.
    mutating func bitsKind(_ f: FieldSpec, bits: Int) -> String {
        let width = bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8
        let key = declare(f.name, "t = \"int\", w = \(width), s = false\(Self.shown(f))")
        return "f = \(WiresharkExport.quoted(key)), k = \"bits\", n = \(bits), w = \(width)"
    }

    /// A tag-length-value list (runtime.lua's `payload_single.tlv`): widths, tag names, a kind per tag.
    mutating func tlvKind(_ f: FieldSpec, _ tlv: FieldSpec.TLV, _ size: FieldSpec.Size) -> String {
        let key = declare(f.name, "t = \"group\"")
        let names =
            tlv.tagNames.map { e in
                ", te = { " + e.all.map { "[\($0.raw)] = \(WiresharkExport.quoted($0.name))" }.joined(separator: ", ")
                    + " }"
            } ?? ""
        let cases = tlv.values.keys.sorted().map { "[\($0)] = { \(kind(f, tlv.values[$0] ?? .bytes(.eos))) }" }
        let fallback = ", fb = { \(kind(f, tlv.fallback ?? .bytes(.eos))) }"
        return "f = \(WiresharkExport.quoted(key)), k = \"tlv\", z = \(Self.size(size)), tw = \(tlv.tag.width), "
            + "tbe = \(tlv.tag.bigEndian), lw = \(tlv.length.width), lbe = \(tlv.length.bigEndian)\(names), "
            + "cases = { \(cases.joined(separator: ", ")) }\(fallback)"
    }

    mutating func floatKind(_ f: FieldSpec, width: Int, bigEndian: Bool) -> String {
        let key = declare(f.name, "t = \"float\", w = \(width)")
        return "f = \(WiresharkExport.quoted(key)), k = \"float\", w = \(width), be = \(bigEndian)"
    }

    mutating func stringZKind(_ f: FieldSpec, size: FieldSpec.Size?) -> String {
        let key = declare(f.name, "t = \"string\"")
        return "f = \(WiresharkExport.quoted(key)), k = \"strz\"" + (size.map { ", z = \(Self.size($0))" } ?? "")
    }
}

extension WiresharkExport.FieldTable {
    /// Every message of `protobufs:` for runtime.lua's `pb_schema`: by field number, its name
    /// (`n`), type (`t`), enum values (`e`) and message (`m`).
    static func lua(_ schemas: ProtobufSchemas) -> String {
        schemas.messages.keys.sorted().map { name in
            let fields = (schemas.messages[name] ?? [:]).sorted { $0.key < $1.key }.map { number, f in
                var parts = ["n = \(WiresharkExport.quoted(f.name))", "t = \"\(f.type.rawValue)\""]
                if let e = f.enumNames {
                    parts.append(
                        "e = { "
                            + e.all.map { "[\($0.raw)] = \(WiresharkExport.quoted($0.name))" }.joined(separator: ", ")
                            + " }")
                }
                if let m = f.message { parts.append("m = \(WiresharkExport.quoted(m))") }
                return "[\(number)] = { \(parts.joined(separator: ", ")) }"
            }
            return "[\(WiresharkExport.quoted(name))] = { \(fields.joined(separator: ", ")) }"
        }.joined(separator: ", ")
    }
}
