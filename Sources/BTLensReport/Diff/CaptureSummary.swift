import BTLensCore
import BTLensDissect

/// What `btlens diff` compares of one capture: counts and first places, never the capture's
/// events. Built from `stats` (commands, latencies, diagnostic counts) and a `SummaryRecorder`
/// (first records, the command sequence, identity strings), with the analyzer's connections.
public struct CaptureSummary: Sendable {
    public struct Latency: Sendable, Equatable {
        /// Responses timed.
        public var count: Int
        /// Milliseconds.
        public var min, p25, median, p75, p95, max: Double

        /// The interquartile range: the spread a change in the median is held against.
        public var spread: Double { p75 - p25 }
    }

    public struct Command: Sendable, Equatable {
        public var dissector: String
        public var command: UInt16
        public var name: String?
        public var sent = 0
        public var received = 0
        public var answered = 0
        public var unanswered = 0
        public var latency: Latency?
    }

    public struct DiagnosticCount: Sendable, Equatable {
        public var severity: Severity
        public var count: Int
        public var firstRecord: Int?
    }

    /// One named frame of the command sequence.
    public struct Step: Sendable, Equatable {
        public var record: Int
        public var direction: Direction
        public var dissector: String
        /// The message's name, else its command in hex.
        public var label: String

        /// What two captures' steps are compared by: not the record.
        var meaning: String { "\(direction == .sent ? "<" : ">") \(dissector) \(label)" }
    }

    public var file: String
    /// Which definition files named the frames, from where (`DefinitionSources.summary`).
    public var definitions: String?
    /// The display filter the events were counted through, if any.
    public var filter: String?
    public var records = 0
    public var firstTime: Timestamp?
    public var lastTime: Timestamp?
    /// By dissector and command.
    public var commands: [String: Command] = [:]
    public var diagnostics: [String: DiagnosticCount] = [:]
    /// Per peer (its address, else its connection handle): what the link was, as name → value.
    public var connections: [String: [String: String]] = [:]
    /// Per GATT server: each service, characteristic and descriptor (by UUIDs, not handles) and
    /// what it is (handles, properties).
    public var gatt: [String: [String: String]] = [:]
    /// What the devices said they are: iAP2 identification, Device Information strings, advertised names.
    public var identity: [String: String] = [:]
    /// The first named frames, in order (`SummaryRecorder.sequenceLimit`).
    public var sequence: [Step] = []

    public init(file: String) { self.file = file }

    static func key(_ dissector: String, _ command: UInt16) -> String {
        "\(dissector) \(Hex.value(command, width: command > 0xff ? 4 : 2))"
    }
}
