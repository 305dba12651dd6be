import BTLensCore
import BTLensDissect

/// A frame variant's `size` (every frame that many bytes, no length field) and `length-adjust`
/// (added to the length field's value to give what `length-counts` counts).
extension DefinitionParser.Parser {
    func frameSize(
        _ m: YAMLFields, header: [FrameFormat.HeaderField], magic: [UInt8]?, checksum: FrameFormat.Checksum?,
        end: [UInt8]
    ) throws(DefinitionError) -> (size: Int?, adjust: Int) {
        let hasLength = header.contains { $0.roles.contains(.length) }
        var adjust = 0
        if let a = m["length-adjust"] {
            guard hasLength else { throw a.error("framing length-adjust: the header has no length field to adjust") }
            adjust = Int(try integer(a, "framing length-adjust", in: -65535...65535))
        }
        guard let s = m["size"] else { return (nil, adjust) }
        let size = Int(try integer(s, "framing size", in: 1...Int64(Limits().messageBytes)))
        if m["delimiter"] != nil { throw s.error("framing size: a delimited frame ends at its delimiter") }
        if hasLength { throw s.error("framing size: frames of a fixed size have no length field; remove it") }
        let headerBytes: Int = header.reduce(0) { $0 + $1.width }
        let trailer: Int = (checksum?.algorithm.width ?? 0) + end.count
        let least = (magic?.count ?? 0) + headerBytes + trailer
        guard size >= least else {
            throw s.error(
                "framing size: \(size) bytes cannot hold the magic, header, checksum and end (\(least) bytes)")
        }
        return (size, adjust)
    }
}
