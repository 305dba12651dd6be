import BTLensCore
import BTLensDissect

/// A checksum's `covers` as a range of the frame's parts: `[command, payload]` (consecutive parts,
/// in wire order) or `{from: command, to: payload}` (Galaxy Buds' CRC over id and payload). The
/// checksum itself still follows the payload.
extension DefinitionParser.Parser {
    func checksumRange(_ v: YAMLValue, header: [FrameFormat.HeaderField], magic: Int) throws(DefinitionError)
        -> (FrameFormat.ChecksumCoverage, FrameFormat.Span?)
    {
        let parts = Self.frameParts(header, magic: magic)
        var named: [YAMLValue]
        if v.isSequence {
            named = try v.items("framing checksum covers")
        } else {
            let m = try v.fields("framing checksum covers", allowed: ["from", "to"])
            named = [
                try m.required("from", "framing checksum covers"), try m.required("to", "framing checksum covers"),
            ]
        }
        var indices: [Int] = []
        for n in named {
            let text = try n.string("framing checksum covers")
            guard let i = parts.firstIndex(where: { $0.names.contains(text) }) else {
                let known = parts.flatMap(\.names).joined(separator: ", ")
                throw n.error("framing checksum covers: '\(text)' is not a part of the frame; expected one of \(known)")
            }
            // A list names consecutive parts; `from` and `to` only need their order.
            if let last = indices.last, i < last || (v.isSequence && i > last + 1) {
                throw n.error(
                    "framing checksum covers: '\(text)' does not follow the part before it; "
                        + "name consecutive parts in wire order, or write {from: FIRST, to: LAST}")
            }
            indices.append(i)
        }
        guard let first = indices.first.map({ parts[$0] }), let last = indices.last.map({ parts[$0] }) else {
            throw v.error("framing checksum covers: expected at least one part of the frame")
        }
        guard last.end == nil else { return (.frame, FrameFormat.Span(from: first.start, to: last.end)) }
        switch first.start {
        case 0: return (.frame, nil)
        case magic: return (.afterMagic, nil)
        case parts[parts.count - 1].start: return (.payload, nil)
        default: return (.frame, FrameFormat.Span(from: first.start, to: nil))
        }
    }

    /// The frame's parts in wire order, by the names a definition gives them; `end` nil: the payload's.
    static func frameParts(_ header: [FrameFormat.HeaderField], magic: Int) -> [(
        names: [String], start: Int, end: Int?
    )] {
        var parts: [(names: [String], start: Int, end: Int?)] = magic > 0 ? [(["magic"], 0, magic)] : []
        var offset = magic
        for f in header {
            let names: [String]
            switch f {
            case .version: names = ["version"]
            case .fragmentCount: names = ["fragment-count"]
            case .fragmentIndex: names = ["fragment-index"]
            case .reserved: names = ["reserved"]
            default: names = f.roles.map(\.rawValue)
            }
            parts.append((names, offset, offset + f.width))
            offset += f.width
        }
        parts.append((["payload"], offset, nil))
        return parts
    }
}
