/// Where each header field of a `FrameFormat` lies, worked out once per stream: the framer reads
/// a frame's fields at these offsets (from the magic) instead of walking the header description.
public struct FrameLayout: Sendable {
    public struct Integer: Sendable {
        public var offset: Int
        public var width: Int
        public var bigEndian: Bool
        /// The field's bits in the word, shifted down by `shift`: all of them for a whole field.
        public var mask: UInt32 = .max
        public var shift = 0
    }

    /// The magic's first byte: where a frame can start.
    public var magicFirst: UInt8?
    public var version: Int?
    public var command: Integer?
    public var sequence: Int?
    public var flags: Int?
    /// Definitions always have one; a format built without one frames nothing.
    public var length: Integer?
    public var fragmentIndex: Int?
    public var fragmentCount: Int?
    /// A sequence or flags held in some bits of a word, where not a byte of their own.
    public var sequenceBits: Integer?
    public var flagsBits: Integer?

    public init(_ format: FrameFormat) {
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
            case .word(let w, let big, let bits):
                for b in bits {
                    let field = Integer(offset: offset, width: w, bigEndian: big, mask: b.mask, shift: b.shift)
                    switch b.role {
                    case .length: length = field
                    case .command: command = field
                    case .sequence: sequenceBits = field
                    case .flags: flagsBits = field
                    }
                }
            }
            offset += f.width
        }
    }
}
