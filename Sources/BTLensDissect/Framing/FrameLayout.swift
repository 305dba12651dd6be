/// Where each header field of a `FrameFormat` lies, worked out once per stream: the framer reads
/// a frame's fields at these offsets (from the magic) instead of walking the header description.
struct FrameLayout: Sendable {
    struct Integer: Sendable {
        var offset: Int
        var width: Int
        var bigEndian: Bool
    }

    /// The magic's first byte: where a frame can start.
    var magicFirst: UInt8?
    var version: Int?
    var command: Integer?
    var sequence: Int?
    var flags: Int?
    /// Definitions always have one; a format built without one frames nothing.
    var length: Integer?
    var fragmentIndex: Int?
    var fragmentCount: Int?

    init(_ format: FrameFormat) {
        magicFirst = format.magic.first
        var offset = format.magic.count
        for f in format.header {
            switch f {
            case .version: version = offset
            case .command(let w, let big): command = Integer(offset: offset, width: w, bigEndian: big)
            case .sequence: sequence = offset
            case .flags: flags = offset
            case .length(let w, let big): length = Integer(offset: offset, width: w, bigEndian: big)
            case .fragmentIndex: fragmentIndex = offset
            case .fragmentCount: fragmentCount = offset
            case .reserved: break
            }
            offset += f.width
        }
    }
}
