/// One entry of an app log as the merger takes it: its time read on the log's own clock and the
/// bytes in hex it shows.
public struct AppLogReadLine: Sendable {
    public var line: AppLogLine
    /// On the log's clock, as UTC (its zone when it writes one); nil when the line writes no
    /// time (logcat `brief`, `process`, `tag`).
    public var rawTime: Int64?
    public var runs: [HexRun]
    /// `--app-log-filter` keeps it: a line it does not keep still aligns and matches, unseen.
    public var kept: Bool

    /// What its time's written digits leave out (µs): a second for whole seconds, a millisecond
    /// for milliseconds; 0 for a line that writes no time.
    public var resolution: Int64 {
        guard let digits = line.time?.fractionDigits else { return 0 }
        var r: Int64 = 1_000_000
        for _ in 0..<min(max(digits, 0), 6) { r /= 10 }
        return r
    }

    /// About the bytes it holds, which its bounds count: its text, its message, its runs' bytes,
    /// and 256 for the rest.
    public var heldBytes: Int {
        line.text.utf8.count + line.message.utf8.count + runs.reduce(256) { $0 + $1.bytes.count }
    }

    public init(line: AppLogLine, rawTime: Int64?, runs: [HexRun], kept: Bool = true) {
        self.line = line
        self.rawTime = rawTime
        self.runs = runs
        self.kept = kept
    }
}
