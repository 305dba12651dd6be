import BTLensCapture
import BTLensCore

/// Writes a PacketLogger file little-endian, as PacketLogger and iOS sysdiagnose do: a btsnoop
/// script's HCI records, and the text and config records only PacketLogger has.
public struct PacketLoggerWriter {
    public private(set) var bytes: [UInt8] = []
    public private(set) var time: Int64 = 1_700_000_000_000_000

    public init() {}

    /// Every HCI record of a btsnoop file (`LESession.bytes`), at its time.
    public mutating func add(btsnoop: [UInt8]) {
        for r in MutantBases.records(btsnoop) {
            let received = r.direction == .received
            let type: UInt8
            switch r.kind {
            case .command: type = 0x00
            case .event: type = 0x01
            case .aclData: type = received ? 0x03 : 0x02
            case .scoData: type = received ? 0x09 : 0x08
            case .isoData: type = received ? 0x13 : 0x12
            case .note, .unknown: continue
            }
            add(type, Array(r.payload), at: r.timestamp.microseconds)
        }
    }

    /// A record of `type` (0xFC note, 0xFD config, 0xF7 syslog, …), 1 ms after the last.
    public mutating func add(_ type: UInt8, _ payload: [UInt8], at microseconds: Int64? = nil) {
        time = microseconds ?? time + 1_000
        let (seconds, micros) = time.quotientAndRemainder(dividingBy: 1_000_000)
        for word in [UInt32(9 + payload.count), UInt32(truncatingIfNeeded: seconds), UInt32(micros)] {
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        bytes += [type] + payload
    }

    /// A syslog record: pid, message type, then process, sender, subsystem, category and message.
    public mutating func syslog(_ message: String) {
        add(
            0xf7,
            [0x2a, 0, 0, 0, 0] + Array("bluetoothd\0bluetoothd\0com.apple.bluetooth\0CBManager\0\(message)\0".utf8))
    }
}
