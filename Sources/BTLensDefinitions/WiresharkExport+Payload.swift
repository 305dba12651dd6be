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

    mutating func floatKind(_ f: FieldSpec, width: Int, bigEndian: Bool) -> String {
        let key = declare(f.name, "t = \"float\", w = \(width)")
        return "f = \(WiresharkExport.quoted(key)), k = \"float\", w = \(width), be = \(bigEndian)"
    }

    mutating func stringZKind(_ f: FieldSpec, size: FieldSpec.Size?) -> String {
        let key = declare(f.name, "t = \"string\"")
        return "f = \(WiresharkExport.quoted(key)), k = \"strz\"" + (size.map { ", z = \(Self.size($0))" } ?? "")
    }
}
