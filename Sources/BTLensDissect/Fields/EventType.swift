/// An event's `type` in the JSONL contract.
public enum EventType: Int, CaseIterable, Sendable {
    case note
    case hciCommand
    case hciEvent
    case connection
    case acl
    case l2cap
    case l2capSignaling
    case rfcomm
    case sdp
    case iap2
    case iap2Control
    case iap2Identification
    case att
    case gattLongRead
    case gattLongWrite
    case gattLongWriteCancelled
    case undecoded
    case a5
    case message
    case diagnostic
    case smp
    case avdtp
    case avdtpMedia
    case avrcp
    case hfp
    case log
    case logAlignment

    /// The type as JSONL writes it.
    public var name: String { Self.names[rawValue] }
    private static let names = [
        "note", "hci.command", "hci.event", "connection", "acl", "l2cap", "l2cap.signaling", "rfcomm", "sdp", "iap2",
        "iap2.control", "iap2.identification", "att", "gatt.long_read", "gatt.long_write", "gatt.long_write_cancelled",
        "undecoded", "a5", "message", "diagnostic", "smp", "avdtp", "avdtp.media", "avrcp", "hfp", "log",
        "log.alignment",
    ]

    /// Borrowed: an initializer would otherwise take a copy of the event (a reference count).
    public init(_ e: borrowing Event) {
        switch e.body {
        case .note: self = .note
        case .hciCommand: self = .hciCommand
        case .hciEvent: self = .hciEvent
        case .connection: self = .connection
        case .acl: self = .acl
        case .l2cap: self = .l2cap
        case .l2capSignaling: self = .l2capSignaling
        case .smp: self = .smp
        case .profile(let m):
            switch m.profile {
            case .avdtp: self = .avdtp
            case .avdtpMedia: self = .avdtpMedia
            case .avrcp: self = .avrcp
            case .hfp: self = .hfp
            }
        case .rfcomm: self = .rfcomm
        case .log: self = .log
        case .logAlignment: self = .logAlignment
        case .sdp: self = .sdp
        case .iap2: self = .iap2
        case .iap2Control: self = .iap2Control
        case .iap2Identification: self = .iap2Identification
        case .att: self = .att
        case .gattValue(let g):
            switch g.kind {
            case .longRead: self = .gattLongRead
            case .longWrite: self = .gattLongWrite
            case .longWriteCancelled: self = .gattLongWriteCancelled
            }
        case .undecoded: self = .undecoded
        case .frame(let f): self = f.isA5 ? .a5 : .message
        case .diagnostic: self = .diagnostic
        }
    }
}
