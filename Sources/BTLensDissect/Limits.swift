/// How much state one capture may make btlens keep. Every buffer and table that grows with the
/// capture has a bound here; what would pass it is dropped with a diagnostic (or counted), never
/// kept, so memory stays flat whatever a file holds. `--limit NAME=N` changes one (docs/limits.md).
public struct Limits: Sendable, Equatable {
    /// Bytes of L2CAP PDUs being reassembled, all links together (one PDU is at most 65,539).
    public var reassemblyBytes = 4 << 20
    /// Characteristic streams (A5 or value) per connection.
    public var streamsPerConnection = 1024
    /// Outstanding requests per dissector and connection; older ones count as unanswered.
    public var pendingRequests = 256
    /// Closed connections remembered for summaries; older ones are counted, not kept.
    public var connectionHistory = 10_000
    /// GATT databases (one per peer and role) learned from discovery.
    public var gattDatabases = 256
    /// Bytes of one message joined from several frames.
    public var messageBytes = 65_536
    /// Bytes of one undecoded packet kept for its event; `length` still says its full size.
    public var undecodedBytes = 4096
    /// Bytes of channels whose guessed protocol their data has not yet confirmed, all channels
    /// together: kept so that a guess the data contradicts can show the channel from its start.
    public var guessBytes = 1 << 20
    /// Bytes a bugreport .zip member may inflate to (it is inflated into a temporary file first).
    public var archiveBytes = 256 << 20
    /// Diagnostic ids and streams the timeline counts per second of capture time, to show the first
    /// of each and count the rest; the diagnostics of further ones are all shown.
    public var diagnosticKeys = 4096

    public init() {}

    /// Every limit by its `--limit` name.
    nonisolated(unsafe) public static let names:
        [(name: String, keyPath: WritableKeyPath<Limits, Int>, about: String)] = [
            ("reassembly-bytes", \.reassemblyBytes, "bytes of L2CAP PDUs in reassembly, all links together"),
            ("streams-per-connection", \.streamsPerConnection, "characteristic streams per connection"),
            ("pending-requests", \.pendingRequests, "outstanding requests per dissector and connection"),
            ("connection-history", \.connectionHistory, "closed connections remembered"),
            ("gatt-databases", \.gattDatabases, "GATT databases learned from discovery"),
            ("message-bytes", \.messageBytes, "bytes of a message joined from several frames"),
            ("undecoded-bytes", \.undecodedBytes, "bytes of an undecoded packet shown"),
            ("guess-bytes", \.guessBytes, "bytes held for channels whose guessed protocol is not yet confirmed"),
            ("archive-bytes", \.archiveBytes, "bytes a bugreport .zip member may inflate to"),
            ("diagnostic-keys", \.diagnosticKeys, "diagnostic ids and streams the timeline counts per second"),
        ]

    /// Applies `name=value`; nil when the name is unknown or the value is not a positive number.
    public func setting(_ text: String) -> Limits? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let entry = Self.names.first(where: { $0.name == parts[0] }),
            let value = Int(parts[1].replacingOccurrences(of: "_", with: "")), value > 0
        else { return nil }
        var limits = self
        limits[keyPath: entry.keyPath] = value
        return limits
    }
}
