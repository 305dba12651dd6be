import BTLensCore
import BTLensDissect

/// A frame variant's `more-follows`: `{flag: 0x10, total: u2le}` (ESP BluFi): a message sent in
/// several frames, each but the last with the flag in its flags field; a flagged frame's payload
/// begins with the message's total length when `total` gives its type.
extension DefinitionParser.Parser {
    func moreFollows(_ v: YAMLValue, header: [FrameFormat.HeaderField]) throws(DefinitionError)
        -> FrameFormat.MoreFollows
    {
        let what = "framing more-follows"
        let m = try v.fields(what, allowed: ["flag", "total"])
        guard header.contains(where: { $0.roles.contains(.flags) }) else {
            throw v.error("\(what): the header has no flags field to carry the flag")
        }
        if header.contains(.fragmentCount) || header.contains(.fragmentIndex) {
            throw v.error("\(what): a message is split by fragment-count and fragment-index or by a flag, not both")
        }
        var more = FrameFormat.MoreFollows(
            flag: UInt8(try integer(m.required("flag", what), "\(what) flag", in: 1...255)))
        if let t = m["total"] {
            let widths = [
                "u1": (1, true), "u2le": (2, false), "u2be": (2, true), "u4le": (4, false), "u4be": (4, true),
            ]
            let type = try t.string("\(what) total")
            guard let (width, bigEndian) = widths[type] else {
                throw t.error("\(what) total: '\(type)'; expected u1, u2le, u2be, u4le or u4be")
            }
            (more.totalWidth, more.totalBigEndian) = (width, bigEndian)
        }
        return more
    }
}
