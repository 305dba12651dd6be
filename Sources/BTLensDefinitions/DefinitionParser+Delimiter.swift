import BTLensCore
import BTLensDissect

/// A frame variant's `delimiter`: `slip`, `hdlc`, `cobs`, or a vendor's marks written out.
extension DefinitionParser.Parser {
    /// `{end: 0x3c, start: 0x3e, escape: 0x3d, xor: 0x10}` (Sony's), or with `codes: {0xdc: 0xc0}`
    /// for an escape followed by a code that stands for a byte (SLIP's).
    func delimiting(_ v: YAMLValue) throws(DefinitionError) -> Delimiting {
        let what = "framing delimiter"
        if v.isScalar {
            let name = try v.string(what)
            guard let d = Delimiting.named.first(where: { $0.name == name })?.delimiting else {
                throw v.error(
                    "\(what): '\(name)'; expected slip, hdlc, cobs or a mapping with end, start, escape, xor, codes")
            }
            return d
        }
        let m = try v.fields(what, allowed: ["end", "start", "escape", "xor", "codes"])
        func byte(_ node: YAMLValue, _ key: String) throws(DefinitionError) -> UInt8 {
            UInt8(try integer(node, "\(what) \(key)", in: 0...255))
        }
        let endNode = try m.required("end", what)
        let end = try byte(endNode, "end")
        let start = try m["start"].map { s throws(DefinitionError) in try byte(s, "start") }
        guard start != end else { throw endNode.error("\(what): start and end are the same byte; give end only") }
        guard let escapeNode = m["escape"] else {
            if let extra = m["xor"] ?? m["codes"] { throw extra.error("\(what): xor and codes need an escape byte") }
            return Delimiting(start: start, end: end, escape: .none)
        }
        let escape = try byte(escapeNode, "escape")
        guard escape != end, escape != start else {
            throw escapeNode.error("\(what): the escape byte is also a delimiter")
        }
        switch (m["xor"], m["codes"]) {
        case (let x?, nil):
            let mask = try byte(x, "xor")
            // Each escaped byte must become one that is no mark, or the frame would hold a mark.
            for mark in [end, escape] + (start.map { [$0] } ?? []) where [end, escape, start].contains(mark ^ mask) {
                throw x.error(
                    "\(what) xor: \(Hex.value(mark, width: 2)) escaped is \(Hex.value(mark ^ mask, width: 2)), itself a mark"
                )
            }
            return Delimiting(start: start, end: end, escape: .xor(escape: escape, mask: mask))
        case (nil, let c?):
            var codes: [UInt8: UInt8] = [:]
            for (key, value) in try c.mapping("\(what) codes") {
                guard let k = YAMLValue.parseInteger(key), (0...255).contains(k) else {
                    throw c.error("\(what) codes: '\(key)' is not a byte")
                }
                guard codes[UInt8(k)] == nil else { throw c.error("\(what) codes: \(key) is given twice") }
                codes[UInt8(k)] = try byte(value, "codes \(key)")
            }
            let marks = Set([end, escape] + (start.map { [$0] } ?? []))
            guard marks.isSubset(of: Set(codes.values)) else {
                throw c.error("\(what) codes: every mark (end, start, escape) needs a code standing for it")
            }
            return Delimiting(start: start, end: end, escape: .codes(escape: escape, codes: codes))
        default:
            throw escapeNode.error("\(what): an escape needs exactly one of xor or codes")
        }
    }
}
