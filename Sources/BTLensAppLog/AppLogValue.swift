import BTLensCore
import BTLensDissect

/// A value the capture carried: what a log line may show.
struct AppLogValue {
    /// A connection's ATT handle, or a channel no decoder took; words only when a diagnostic says it.
    struct Stream: Hashable, CustomStringConvertible {
        var connection: UInt16?
        var handle: UInt16?
        var what: String?
        var description: String {
            let c = connection.map { Hex.value($0, width: 4) } ?? "-"
            return handle.map { "\(c) ATT \(Hex.value($0, width: 4))" } ?? "\(c) \(what ?? "")"
        }
    }

    var record: Int
    var time: Int64
    /// A slice of the held event's own copy of its value: one copy per value, not two.
    var bytes: ArraySlice<UInt8>
    var direction: Direction?
    /// Its stream: a stream the app logs is one a line matched.
    var stream: Stream
    var matched = false
    /// The hashes of its bytes and of its first 4, kept for the index (`AppLogValues`).
    var hash = 0
    var head: Int?
    /// Where its event waits in the merger's second hold.
    var slot = 0
    /// An A5 frame over ATT that is not its record's value whole (one of several in it, or one
    /// joined from several writes): a line showing it shows each value it came from (`parent`,
    /// the last, and those before it on its stream), and it is never said not logged itself.
    var derived = false
    var parent: Int?

    init(record: Int, time: Int64, bytes: ArraySlice<UInt8>, direction: Direction?, stream: Stream) {
        (self.record, self.time, self.bytes, self.direction, self.stream) = (record, time, bytes, direction, stream)
    }

    /// The bytes an event carried that an app may log: ATT values, joined long values, A5 frames
    /// on other channels (EA sessions, RFCOMM), data no decoder took (a serial protocol on RFCOMM).
    init?(_ e: Event) {
        let t = e.timestamp.microseconds
        switch e.body {
        case .att(let a):
            // What an app writes and is given: not a Prepare Write Response's echo of its own bytes.
            guard Self.valueOpcodes.contains(a.opcode), let v = a.value, !v.isEmpty, let h = a.handle else {
                return nil
            }
            self.init(
                record: e.record, time: t, bytes: v, direction: e.direction,
                stream: Stream(connection: e.connection, handle: h))
        case .gattValue(let g):
            self.init(
                record: e.record, time: t, bytes: g.value[...], direction: e.direction,
                stream: Stream(connection: e.connection, handle: g.handle))
        case .frame(let f) where f.transport != .att && f.isA5 && f.frame.payload.count == f.frame.payloadCount:
            // An A5 frame of an EA session, an RFCOMM or a credit-based channel: its wire bytes,
            // as an app logs what it writes to the session (over ATT, the value holds them).
            let channel = f.eaSession.map { "EA session \($0)" } ?? f.rfcommChannel.map { "RFCOMM channel \($0)" }
            self.init(
                record: e.record, time: t, bytes: Self.wireBytes(f.frame)[...], direction: e.direction,
                stream: Stream(connection: e.connection, what: channel ?? f.transport.rawValue))
        case .undecoded(let u) where !u.bytes.isEmpty:
            self.init(
                record: e.record, time: t, bytes: u.bytes[...], direction: e.direction,
                stream: Stream(connection: e.connection, what: u.what))
        default:
            return nil
        }
    }

    /// The ATT PDUs whose value an app writes or is given (Core Vol 3 Part F §3.4).
    static let valueOpcodes: Set<ATTOpcode> = [
        .readResponse, .readBlobResponse, .writeRequest, .writeCommand, .signedWriteCommand,
        .handleValueNotification, .handleValueIndication,
    ]

    /// An A5 frame's bytes as they were on the wire: as an app logs what it writes or is given.
    static func wireBytes(_ frame: Frame) -> [UInt8] {
        FrameFormat.a5.encode(
            command: frame.command, sequence: frame.sequence ?? 0, flags: frame.flags ?? 0,
            version: frame.version ?? 1, payload: frame.payload, fragment: frame.fragment,
            messageChecksum: frame.checksum)
    }
}
