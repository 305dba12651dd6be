import BTLensCore

/// Why a framer skipped bytes (`a5.resync`): what its framing expected where the first of them
/// was, and what it found. Cheap to make: a search out of sync skips byte by byte, and the text is
/// written only when the skip is reported.
public enum SkipReason: Sendable, Equatable {
    /// A byte that is not the magic's first.
    case magic(found: UInt8)
    /// The magic's first byte, not followed by the rest of it.
    case magicRest
    /// A length field whose frame cannot be (shorter than its header, past the limit).
    case length(Int)
    /// A candidate without the framing's end bytes, due at this offset.
    case end(at: Int)
    /// Out of sync, a candidate whose checksum does not hold.
    case checksum(found: UInt32?, computed: UInt32?)
    /// A framing with no magic, out of sync: the rest of the value.
    case outOfSync
    /// Delimited: bytes held without an end byte past the limit.
    case noEnd(held: Int)
    /// Delimited: an end byte with no start byte before it.
    case noStart
    /// Delimited: bytes before a start byte.
    case beforeStart(found: UInt8)
    /// Delimited: a start byte before the frame's end.
    case startInside
    /// Delimited: an escape followed by a byte that stands for none.
    case escape
    /// Delimited: bytes between the marks that make no frame: their count, whether they begin
    /// with the magic.
    case delimited(Int, magic: Bool)
    /// Delimited with no start byte: the first bytes of a stream, before any end byte, whose
    /// checksum does not hold (the tail of a frame begun before the stream, or junk).
    case unproven
    /// A framing whose frames do not span values: bytes a value left unframed.
    case valueEnded

    /// `expected …, found …`, in the words of the framing.
    public func text(_ format: FrameFormat, limit: Int) -> String {
        let magic = Self.hex(format.magic)
        switch self {
        case .magic(let found): return "expected the magic \(magic), found \(Self.hex([found]))"
        case .magicRest: return "expected the magic \(magic), found its first byte alone"
        case .length(let n):
            return "expected a length for a frame of \(format.headerLength) to \(limit) bytes, found \(n)"
        case .end(let at): return "expected the end \(Self.hex(format.end)) after \(at) bytes, found other bytes"
        case .checksum(let found, let computed):
            let width = 2 * (format.checksum?.algorithm.width ?? 1)
            return "out of sync, expected a frame whose checksum holds, found \(Hex.value(found ?? 0, width: width))"
                + " where its bytes give \(Hex.value(computed ?? 0, width: width))"
        case .outOfSync: return "expected a frame at the start of a value, found the rest of a value out of sync"
        case .noEnd(let held): return "expected an end byte, found none in \(held) bytes"
        case .noStart: return "expected a start byte before the end byte, found none"
        case .beforeStart(let found): return "expected a start byte, found \(Self.hex([found]))"
        case .startInside: return "expected an end byte, found another start byte"
        case .escape: return "expected an escape followed by a byte it stands for, found one that stands for none"
        case .valueEnded: return "expected a frame to end in the value it began in, found the value ended first"
        case .unproven:
            return "expected a frame whose checksum holds before the stream's first end byte, found one that does not"
        case .delimited(let n, let hasMagic):
            guard hasMagic else { return "expected the magic \(magic) after the start, found other bytes" }
            let least = format.headerLength + format.trailerLength
            return n < least
                ? "expected at least \(least) bytes between the marks, found \(n)"
                : "expected a length field that counts the \(n) bytes between the marks, found one that does not"
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.map { Hex.value($0, width: 2).dropFirst(2) }.joined()
    }
}
