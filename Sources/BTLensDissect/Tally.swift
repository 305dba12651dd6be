/// What an analyzer counted instead of sending as events, in `.counts` detail (`stats`): each ATT
/// PDU, each A5 frame, and the commands dissectors named. Wireshark's taps work the same way: a
/// dissector builds no tap data when no one listens. Bounded whatever the capture (`CommandStats.limit`).
public struct Tally: Sendable, Equatable {
    /// ATT PDUs by opcode (the index).
    public var attOpcodes = [Int](repeating: 0, count: 256)
    /// A5 frames by `Direction.rawValue`, and those of them whose checksum is wrong.
    public var a5Frames = [0, 0]
    public var a5BadChecksum = 0
    /// Frames of the other framings, per dissector.
    public var framed = FramedCounts()
    /// Frames a dissector named, by command, with their latency.
    public var commands = CommandStats()

    public init() {}
}
