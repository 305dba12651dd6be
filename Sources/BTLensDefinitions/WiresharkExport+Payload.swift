/// How the runtime reads varints, floats and `strz` (runtime.lua's `payload_single`).
extension WiresharkExport.FieldTable {
    /// 64 bits wide in Wireshark, as a varint holds up to 64.
    mutating func varintKind(_ f: FieldSpec, signed: Bool) -> String {
        let key = declare(f.name, "t = \"int\", w = 8, s = \(signed)\(Self.shown(f))")
        return "f = \(WiresharkExport.quoted(key)), k = \"varint\", s = \(signed)"
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
