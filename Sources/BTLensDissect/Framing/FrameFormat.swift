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

        var width: Int {
            switch self {
            case .version, .sequence, .flags, .fragmentCount, .fragmentIndex: return 1
            case .command(let w, _), .length(let w, _): return w
            case .reserved(let n): return n
            }
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

        public init(_ algorithm: ChecksumAlgorithm, covers: ChecksumCoverage = .frame, bigEndian: Bool = true) {
            self.algorithm = algorithm
            self.covers = covers
            self.bigEndian = bigEndian
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
    /// Derived once: the framer asks for them several times per frame.
    public let headerLength: Int
    public let trailerLength: Int
    public let hasFragments: Bool
    /// How the phone's frames (`sent`) and the accessory's number themselves (`sequence-per`).
    public var sequences = SequenceScopes()
    /// The flag bit (or bits) that marks a frame's payload encrypted (`encrypted: {flag: 0x01}`).
    public var encryptedFlag: UInt8? = nil

    public init(
        name: String, magic: [UInt8], header: [HeaderField], lengthCounts: LengthCounts = .payload,
        checksum: Checksum?, delimiting: Delimiting? = nil, end: [UInt8] = [], maxLength: Int? = nil
    ) {
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
        switch lengthCounts {
        case .payload: p = n
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
            if case .length = f { return offset }
        }
        return offset
    }
}
