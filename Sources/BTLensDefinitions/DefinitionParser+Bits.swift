import BTLensCore
import BTLensDissect

/// A header word whose bits hold fields: `{word: u2le, fields: {length: 0x03ff, flags: 0x3000}}`
/// (Galaxy Buds' header). Each field is its mask's bits, shifted down to the mask's lowest bit.
extension DefinitionParser.Parser {
    func bitWord(_ v: YAMLValue) throws(DefinitionError) -> FrameFormat.HeaderField {
        let what = "framing header word"
        let m = try v.fields(what, allowed: ["word", "fields"])
        let typeNode = try m.required("word", what)
        let widths = ["u1": (1, true), "u2le": (2, false), "u2be": (2, true), "u4le": (4, false), "u4be": (4, true)]
        let type = try typeNode.string(what)
        guard let (width, bigEndian) = widths[type] else {
            throw typeNode.error("\(what): '\(type)'; expected u1, u2le, u2be, u4le or u4be")
        }
        let fieldsNode = try m.required("fields", what)
        var bits: [FrameFormat.BitField] = []
        var used: UInt32 = 0
        for (key, value) in try fieldsNode.mapping("\(what) fields") {
            guard let role = FrameFormat.BitField.Role(rawValue: key) else {
                throw fieldsNode.error(
                    "\(what) fields: unknown field '\(key)'; expected length, command, sequence or flags"
                        + " (a flag bit is named under the file's flags: by its value in the flags field)")
            }
            let top = Int64(1) << (8 * width) - 1
            let mask = UInt32(try integer(value, "\(what) fields \(key) (\(8 * width) bits)", in: 1...top))
            let run = mask >> mask.trailingZeroBitCount
            // One run of bits: a mask with holes would not say where the field's bits go.
            guard run & (run &+ 1) == 0 else {
                throw value.error("\(what) fields \(key): \(Hex.value(mask, width: 2 * width)) is not one run of bits")
            }
            let most = role == .length ? 32 : role == .command ? 16 : 8
            guard run.nonzeroBitCount <= most else {
                throw value.error("\(what) fields \(key): \(run.nonzeroBitCount) bits; \(key) holds at most \(most)")
            }
            guard used & mask == 0 else { throw value.error("\(what) fields \(key): its bits overlap another field's") }
            guard !bits.contains(where: { $0.role == role }) else {
                throw value.error("\(what) fields: \(key) is given twice")
            }
            used |= mask
            bits.append(FrameFormat.BitField(role, mask: mask))
        }
        guard !bits.isEmpty else { throw fieldsNode.error("\(what) fields: expected at least one field") }
        return .word(width: width, bigEndian: bigEndian, bits: bits)
    }
}
