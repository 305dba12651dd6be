import BTLensCore

/// AVCTP packet types (AVCTP 1.4 §6.1.1): a message in one packet, or in a start packet, continue
/// packets and an end packet.
public enum AVCTPPacketType: UInt8, Sendable {
    case single = 0
    case start = 1
    case `continue` = 2
    case end = 3

    public var name: String {
        switch self {
        case .single: return "single"
        case .start: return "start"
        case .continue: return "continue"
        case .end: return "end"
        }
    }
}

/// One whole AVCTP message (AVCTP 1.4 §6.1): its header and the profile's bytes, joined from its
/// packets when it was fragmented.
public struct AVCTPMessage: Sendable {
    /// The A/V remote control profile's PID (the AV Remote Control service class, 0x110E): AVRCP.
    public static let avrcpPID: UInt16 = 0x110E

    /// Transaction label, 0–15.
    public var transaction: UInt8
    public var isCommand: Bool
    /// IPID: a response saying the command's PID is not registered (it carries no profile bytes).
    public var invalidPID: Bool
    public var pid: UInt16
    /// The AVCTP packets it came in: 1 for a single packet.
    public var packets: Int
    /// Bytes of AVCTP header before `payload` when the message is a single packet (3), so a
    /// diagnostic's offset in `payload` maps to the L2CAP payload; 0 for a joined message.
    public var headerLength: Int
    /// The profile's bytes (AVRCP's AV/C frame or browsing PDU).
    public var payload: ArraySlice<UInt8>

    public init(
        transaction: UInt8, isCommand: Bool, invalidPID: Bool = false, pid: UInt16 = avrcpPID, packets: Int = 1,
        headerLength: Int = 3, payload: ArraySlice<UInt8>
    ) {
        self.transaction = transaction
        self.isCommand = isCommand
        self.invalidPID = invalidPID
        self.pid = pid
        self.packets = packets
        self.headerLength = headerLength
        self.payload = payload
    }

    /// The first fields of every message decoded from it.
    var headerFields: [(String, FieldValue)] {
        [("transaction", .int(transaction)), ("kind", .string(isCommand ? "command" : "response"))]
    }
}

/// The first octet of every AVCTP packet (AVCTP 1.4 §6.1.1, Figure 6.1).
struct AVCTPPacketHeader {
    var transaction: UInt8
    var type: AVCTPPacketType
    var isCommand: Bool
    var invalidPID: Bool

    init(_ octet: UInt8) {
        transaction = octet >> 4
        type = AVCTPPacketType(rawValue: (octet >> 2) & 0x03) ?? .single
        isCommand = octet & 0x02 == 0
        invalidPID = octet & 0x01 != 0
    }
}
