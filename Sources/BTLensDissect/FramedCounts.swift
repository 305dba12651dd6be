/// Frames of the vendors' own framings (not A5, not whole values), per dissector: by direction,
/// and those whose checksum is wrong. A5 frames keep their own count (`Tally.a5Frames`).
public struct FramedCounts: Sendable, Equatable {
    public struct Count: Sendable, Equatable {
        public var sent = 0
        public var received = 0
        public var checksumBad = 0
        public var total: Int { sent + received }
    }

    /// One entry per dissector: a few at most, scanned rather than hashed.
    public private(set) var counts: [(dissector: String, count: Count)] = []

    public init() {}

    public static func == (a: FramedCounts, b: FramedCounts) -> Bool {
        a.counts.elementsEqual(b.counts) { $0.dissector == $1.dissector && $0.count == $1.count }
    }

    public mutating func frame(_ dissector: String, received: Bool, checksumOK: Bool) {
        let i =
            counts.firstIndex { $0.dissector == dissector }
            ?? {
                counts.append((dissector, Count()))
                return counts.count - 1
            }()
        if received { counts[i].count.received += 1 } else { counts[i].count.sent += 1 }
        if !checksumOK { counts[i].count.checksumBad += 1 }
    }

    public mutating func add(_ other: FramedCounts) {
        for (d, c) in other.counts {
            let i =
                counts.firstIndex { $0.dissector == d }
                ?? {
                    counts.append((d, Count()))
                    return counts.count - 1
                }()
            counts[i].count.sent += c.sent
            counts[i].count.received += c.received
            counts[i].count.checksumBad += c.checksumBad
        }
    }

    /// By dissector name.
    public var sorted: [(dissector: String, count: Count)] { counts.sorted { $0.dissector < $1.dissector } }
}
