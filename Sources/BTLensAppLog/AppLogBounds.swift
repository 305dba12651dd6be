/// The bounds of placing app logs on a capture's timeline (docs/app-logs.md, "On the timeline").
public enum AppLogBounds {
    /// A line matches a value within this much capture time (µs); each hold keeps events this long.
    public static let window: Int64 = 2_000_000
    /// While the offset is found: at most this much capture time (µs) of events held, and
    /// `readAhead` lines of each log read.
    public static let alignTime: Int64 = 60_000_000
    public static let readAhead = 20_000
    /// And at most this many bytes of them (`AppLogReadLine.heldBytes`), all logs together: each
    /// log reads ahead its share, and at least one line.
    public static let readAheadBytes = 32 << 20
    /// Lines a log's lane holds (read ahead into time order, or waiting for their value): at most
    /// this many bytes of them, all logs together, each its share and at least one line.
    public static let laneBytes = 8 << 20
    /// Each hold keeps at most this many events and bytes of them; past those the oldest go on early.
    public static let holdLimit = 50_000
    public static let holdBytes = 16 << 20
}
