/// Which way bytes went, as the words around them in a log line say.
public enum TransferDirection: String, Sendable, Equatable {
    case sent
    case received
}

/// Bytes written as hex in a log message.
public struct HexRun: Sendable, Equatable {
    public var bytes: [UInt8]
    /// From the first byte's first character (its `0x` included) to the last byte's last digit.
    public var range: Range<String.Index>
    /// False when the line shows part of the value: an ellipsis follows the bytes (`A5 01 20 …`), or
    /// an NSData description elides some (`{length = 40, bytes = 0x… ... …}`; `bytes` are then the
    /// ones before the ellipsis).
    public var isComplete: Bool
    /// From the nearest direction word before the bytes, else the first one after them.
    public var direction: TransferDirection?
    /// Two separated pairs of digits alone (`03 20`): as likely a number as bytes, so they count as
    /// bytes only where a value agrees with them in time and order (`AppLogAirMatcher`), and never
    /// place a log's clock or say a value was not on the air.
    public var isWeak = false

    public init(
        bytes: [UInt8], range: Range<String.Index>, isComplete: Bool = true, direction: TransferDirection? = nil,
        isWeak: Bool = false
    ) {
        self.bytes = bytes
        self.range = range
        self.isComplete = isComplete
        self.direction = direction
        self.isWeak = isWeak
    }
}
