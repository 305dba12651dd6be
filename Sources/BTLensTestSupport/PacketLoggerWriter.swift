import BTLensCore

/// Writes little-endian PacketLogger files as modern PacketLogger and iOS sysdiagnose do: records of
/// length (u32, not counting itself), seconds, microseconds (u32 each), type (u8), payload.
public struct PacketLoggerWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// A note record (type 0xfc), as iOS writes the phone's facts at the top of a file.
    public mutating func note(_ text: String, time: Int64) { add(0xfc, Array(text.utf8), time: time) }

    public mutating func command(_ packet: [UInt8], time: Int64) { add(0x00, packet, time: time) }

    public mutating func event(_ packet: [UInt8], time: Int64) { add(0x01, packet, time: time) }

    public mutating func acl(_ direction: Direction, _ packet: [UInt8], time: Int64) {
        add(direction == .sent ? 0x02 : 0x03, packet, time: time)
    }

    private mutating func add(_ type: UInt8, _ payload: [UInt8], time: Int64) {
        let (seconds, micros) = time.quotientAndRemainder(dividingBy: 1_000_000)
        for v in [UInt32(9 + payload.count), UInt32(truncatingIfNeeded: seconds), UInt32(micros)] {
            bytes += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
        }
        bytes += [type] + payload
    }
}
