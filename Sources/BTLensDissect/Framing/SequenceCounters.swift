import BTLensCore

/// A frame header field whose every value numbers its frames on its own (`sequence-per`).
public enum SequenceKey: String, Sendable, CaseIterable {
    case command, version, flags
}

/// How one direction of a stream numbers its frames: with one counter, one per value of a header
/// field, or with numbers that count nothing (checked for no gap).
public enum SequenceScope: Sendable, Equatable {
    case stream
    case per(SequenceKey)
    case none

    /// The header field counted per value, if any.
    public var key: SequenceKey? { if case .per(let k) = self { k } else { nil } }

    public var name: String {
        switch self {
        case .stream: "stream"
        case .per(let key): key.rawValue
        case .none: "none"
        }
    }
}

/// The sequence numbers seen last on one stream, one counter for the stream or one per value of
/// a header field, and the gaps and repeats they reveal.
struct SequenceCounters {
    /// Separate counters kept per stream: frames of further values are not checked.
    static let limit = 256

    let key: SequenceKey?
    private var last: UInt8?
    private var lastPer: [UInt16: UInt8] = [:]

    init(per key: SequenceKey?) { self.key = key }

    /// The value of the key field a frame is counted under, or nil for the stream's one counter.
    func keyValue(command: UInt16, version: UInt8?, flags: UInt8?) -> UInt16? {
        switch key {
        case nil: return nil
        case .command: return command
        case .version: return version.map(UInt16.init)
        case .flags: return flags.map(UInt16.init)
        }
    }

    /// Records `sequence` under `value` (nil: the stream's counter); returns the one seen before
    /// under it, or nil when there was none or the value is past the bound of counters.
    mutating func record(_ sequence: UInt8, under value: UInt16?) -> UInt8? {
        guard let value else {
            defer { last = sequence }
            return last
        }
        if let before = lastPer[value] {
            lastPer[value] = sequence
            return before
        }
        if lastPer.count < Self.limit { lastPer[value] = sequence }
        return nil
    }
}

/// How each direction of a framing numbers its frames.
public struct SequenceScopes: Sendable, Equatable {
    public var sent: SequenceScope
    public var received: SequenceScope

    public init(sent: SequenceScope = .stream, received: SequenceScope = .stream) {
        self.sent = sent
        self.received = received
    }

    public subscript(direction: Direction) -> SequenceScope { direction == .sent ? sent : received }
}
