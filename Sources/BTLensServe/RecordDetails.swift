/// One record as the details pane shows it: its layers as `timeline --verbose` prints them, and its bytes.
public struct RecordDetails: Sendable {
    public var record: Int
    public var bytes: [UInt8]
    /// The record's length in the capture (more than `bytes` when the capture cut it).
    public var originalLength: Int
    public var lines: [String] = []
    /// Why something is missing, said in the pane.
    public var note: String?

    public init(record: Int, bytes: [UInt8], originalLength: Int, lines: [String] = [], note: String? = nil) {
        self.record = record
        self.bytes = bytes
        self.originalLength = originalLength
        self.lines = lines
        self.note = note
    }

    /// What holding it costs: its bytes and lines, and their arrays' and strings' headers.
    var size: Int { bytes.count + lines.reduce(128) { $0 + $1.utf8.count + 32 } }
}

/// The newest records' details, bounded in bytes: the oldest go first.
struct RecordDetailsStore {
    private var held = HeldQueue<RecordDetails>()
    private var bytes = 0
    /// A record's lines come after it, from events that may complete in it a few records later.
    private static let lookBack = 64

    mutating func add(_ d: RecordDetails, limit: Int) {
        held.append(d)
        bytes += d.size
        trim(limit)
    }

    mutating func addLine(_ line: String, record: Int, limit: Int) {
        guard let i = held.lastOffset(within: Self.lookBack, where: { $0.record == record }) else { return }
        held[i].lines.append(line)
        bytes += line.utf8.count + 32
        trim(limit)
    }

    func find(_ record: Int) -> RecordDetails? {
        held.lastOffset(within: held.count, where: { $0.record == record }).map { held[$0] }
    }

    /// The first record still held.
    var oldest: Int? { held.first?.record }

    private mutating func trim(_ limit: Int) {
        while bytes > limit, held.count > 1 { bytes -= held.removeFirst().size }
    }
}
