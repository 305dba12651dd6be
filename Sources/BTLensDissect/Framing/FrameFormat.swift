/// The layout of a framed vendor protocol: a magic, header fields in order, a length, the payload
/// and a checksum. The A5 frame (docs/protocols/a5-frame.md) is `FrameFormat.a5`; definitions describe variants.
public struct FrameFormat: Sendable, Equatable {
    public enum HeaderField: Sendable, Equatable {
        case version
        /// The command id, 1 or 2 bytes.
        case command(width: Int, bigEndian: Bool)
        case sequence
        case flags
        /// The length field, 1 or 2 bytes.
        case length(width: Int, bigEndian: Bool)
        /// Bytes the format reserves and btlens does not interpret.
        case reserved(Int)
        /// A message sent in several frames: how many, and which this is (1-based). Frames before
        /// the last carry no checksum; the last one's covers the joined payload.
        case fragmentCount
        case fragmentIndex
        /// A 1-, 2- or 4-byte word whose bits hold fields (Galaxy Buds' length and flags in a u16le).
        case word(width: Int, bigEndian: Bool, bits: [BitField])

        public var width: Int {
            switch self {
            case .version, .sequence, .flags, .fragmentCount, .fragmentIndex: return 1
            case .command(let w, _), .length(let w, _), .word(let w, _, _): return w
            case .reserved(let n): return n
            }
        }

        /// The roles the field plays: a word's bits may play several.
        public var roles: [BitField.Role] {
            switch self {
            case .command: return [.command]
            case .length: return [.length]
            case .sequence: return [.sequence]
            case .flags: return [.flags]
            case .word(_, _, let bits): return bits.map(\.role)
            default: return []
            }
        }
    }

    /// A header field held in some bits of a word: its value is the word masked, shifted down to
    /// the mask's lowest bit.
    public struct BitField: Sendable, Equatable {
        public enum Role: String, Sendable, CaseIterable {
            case length, command, sequence, flags
        }

        public var role: Role
        public var mask: UInt32
        public var shift: Int { mask.trailingZeroBitCount }

        public init(_ role: Role, mask: UInt32) {
            self.role = role
            self.mask = mask
        }
    }

    /// What the length field counts.
    public enum LengthCounts: String, Sendable, CaseIterable {
        /// The payload only (A5).
        case payload
        /// The whole frame, magic to checksum.
        case frame
        /// Everything after the length field, checksum included.
        case rest = "after-length"
        /// The payload and the checksum after it.
        case payloadAndChecksum = "payload-checksum"
        /// The header fields after the magic, and the payload.
        case headerAndPayload = "header-payload"
    }

    /// Which bytes the checksum covers.
    public enum ChecksumCoverage: String, Sendable, CaseIterable {
        /// From the magic to the byte before the checksum (A5).
        case frame
        /// From the byte after the magic.
        case afterMagic = "after-magic"
        case payload
    }

    public struct Checksum: Sendable, Equatable {
        public var algorithm: ChecksumAlgorithm
        public var covers: ChecksumCoverage
        public var bigEndian: Bool
        /// A range of the frame's parts, where `covers` cannot say it: it overrides `covers`.
        public var span: Span?
        /// Bits of the flags field that say the frame carries the checksum (BluFi's 0x02); nil: always.
        public var flag: UInt8?

        public init(_ algorithm: ChecksumAlgorithm, covers: ChecksumCoverage = .frame, bigEndian: Bool = true) {
            self.algorithm = algorithm
            self.covers = covers
            self.bigEndian = bigEndian
        }
    }

    /// Bytes a checksum covers: from offset `from` of the frame (0: the magic's first byte) to
    /// offset `to`, or to the payload's end when `to` is nil.
    public struct Span: Sendable, Equatable {
        public var from: Int
        public var to: Int?

        public init(from: Int, to: Int?) {
            self.from = from
            self.to = to
        }
    }

    public let name: String
    public let magic: [UInt8]
    /// Fields after the magic, in wire order; exactly one is `.length`.
    public let header: [HeaderField]
    public let lengthCounts: LengthCounts
    public let checksum: Checksum?
    /// For a delimited framing (SLIP, HDLC, COBS, …): how frames are marked and escaped; its
    /// frames need no length field.
    public let delimiting: Delimiting?
    /// Bytes every frame ends with, after its checksum (Jieli's `EF`): a frame without them is none.
    public let end: [UInt8]
    /// The longest frame the protocol sends, where its definition says: a longer length is wrong.
    /// Without a checksum, it is what keeps a stray magic from holding the stream up.
    public let maxLength: Int?
    /// Every frame's length, for frames of a fixed size (no length field).
    public let size: Int?
    /// Added to the length field's value to give what `lengthCounts` counts.
    public let lengthAdjust: Int
    /// Bytes a stream may send once, before its first frame (Chsmartbulb's 8-byte text).
    public let preamble: [UInt8]
    /// Messages sent in several frames, each but the last with a flag (ESP BluFi's 0x10).
    public let more: MoreFollows?

    /// A flag bit saying another frame of the message follows; in a flagged frame, the payload
    /// may begin with the message's total length (BluFi's u2le), which is no part of the message.
    public struct MoreFollows: Sendable, Equatable {
        public var flag: UInt8
        public var totalWidth: Int
        public var totalBigEndian: Bool

        public init(flag: UInt8, totalWidth: Int = 0, totalBigEndian: Bool = false) {
            self.flag = flag
            self.totalWidth = totalWidth
            self.totalBigEndian = totalBigEndian
        }
    }
    /// Derived once: the framer asks for them several times per frame.
    public let headerLength: Int
    public let trailerLength: Int
    public let hasFragments: Bool
    /// How the phone's frames (`sent`) and the accessory's number themselves (`sequence-per`).
    public var sequences = SequenceScopes()
    /// The flag bit (or bits) that marks a frame's payload encrypted (`encrypted: {flag: 0x01}`).
    public var encryptedFlag: UInt8? = nil
    /// False where a frame never spans values (ATT values, RFCOMM frames, SDUs): bytes a value
    /// leaves unframed are junk when the next value begins, not the start of its frame.
    public var spansValues = true

    public init(
        name: String, magic: [UInt8], header: [HeaderField], lengthCounts: LengthCounts = .payload,
        checksum: Checksum?, delimiting: Delimiting? = nil, end: [UInt8] = [], maxLength: Int? = nil,
        size: Int? = nil, lengthAdjust: Int = 0, preamble: [UInt8] = [], more: MoreFollows? = nil
    ) {
        self.preamble = preamble
        self.more = more
        self.size = size
        self.lengthAdjust = lengthAdjust
        self.delimiting = delimiting
        self.end = end
        self.maxLength = maxLength
        self.name = name
        self.magic = magic
        self.header = header
        self.lengthCounts = lengthCounts
        self.checksum = checksum
        headerLength = magic.count + header.reduce(0) { $0 + $1.width }
        trailerLength = checksum?.algorithm.width ?? 0
        hasFragments = header.contains(.fragmentCount) && header.contains(.fragmentIndex)
    }

    /// A5 01 cmd seq flags len payload sum8 (docs/protocols/a5-frame.md).
    public static let a5 = FrameFormat(
        name: a5Name, magic: [0xa5],
        header: [
            .version, .command(width: 1, bigEndian: true), .sequence, .flags,
            .length(width: 1, bigEndian: true),
        ],
        checksum: Checksum(.sum8))
    /// The A5 frame's name, without reaching for the format (a global, initialized on first use).
    public static var a5Name: String { "a5" }

    /// The payload length a length field value implies for a frame ending in `trailer` checksum
    /// bytes, or nil when it cannot describe a frame.
    func payloadLength(forLengthValue n: Int, trailer: Int) -> Int? {
        let p: Int
        let n = n + lengthAdjust
        switch lengthCounts {
        case .payload: p = n
        case .headerAndPayload: p = n - (headerLength - magic.count)
        case .frame: p = n - headerLength - trailer - end.count
        case .rest: p = n - trailer - end.count - (headerLength - lengthFieldEnd)
        case .payloadAndChecksum: p = n - trailer
        }
        return p >= 0 ? p : nil
    }

    /// Offset just past the length field.
    public var lengthFieldEnd: Int {
        var offset = magic.count
        for f in header {
            offset += f.width
            if f.roles.contains(.length) { return offset }
        }
        return offset
    }
}
