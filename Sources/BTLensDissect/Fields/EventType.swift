/// An event's `type` in the JSONL contract: the kinds of event below, then one per profile, in the
/// order of `Analyzer.profiles`.
public struct EventType: Hashable, Sendable, CaseIterable {
    /// Its place in `allCases`, and its bit in a filter's set of types.
    public let rawValue: Int

    // Computed, so that each is a constant where it is used: `EventType(e)` runs for every event.
    public static var note: EventType { EventType(rawValue: 0) }
    public static var hciCommand: EventType { EventType(rawValue: 1) }
    public static var hciEvent: EventType { EventType(rawValue: 2) }
    public static var connection: EventType { EventType(rawValue: 3) }
    public static var acl: EventType { EventType(rawValue: 4) }
    public static var l2cap: EventType { EventType(rawValue: 5) }
    public static var l2capSignaling: EventType { EventType(rawValue: 6) }
    public static var rfcomm: EventType { EventType(rawValue: 7) }
    public static var sdp: EventType { EventType(rawValue: 8) }
    public static var iap2: EventType { EventType(rawValue: 9) }
    public static var iap2Control: EventType { EventType(rawValue: 10) }
    public static var iap2Identification: EventType { EventType(rawValue: 11) }
    public static var att: EventType { EventType(rawValue: 12) }
    public static var gattLongRead: EventType { EventType(rawValue: 13) }
    public static var gattLongWrite: EventType { EventType(rawValue: 14) }
    public static var gattLongWriteCancelled: EventType { EventType(rawValue: 15) }
    public static var undecoded: EventType { EventType(rawValue: 16) }
    public static var a5: EventType { EventType(rawValue: 17) }
    public static var message: EventType { EventType(rawValue: 18) }
    public static var diagnostic: EventType { EventType(rawValue: 19) }
    public static var smp: EventType { EventType(rawValue: 20) }
    public static var log: EventType { EventType(rawValue: 21) }
    public static var logAlignment: EventType { EventType(rawValue: 22) }
    public static var hciDebug: EventType { EventType(rawValue: 23) }

    init(rawValue: Int) { self.rawValue = rawValue }

    /// The type of a profile's messages: after the other kinds, in the order of `Analyzer.profiles`.
    init(_ profile: Profile) { rawValue = Self.kinds.count + profile.index }

    public static let allCases = (0..<names.count).map(EventType.init(rawValue:))

    /// The type as JSONL writes it.
    public var name: String { Self.names[rawValue] }
    private static let names = kinds + Analyzer.profiles.map(\.type)
    /// The kinds of event that are not a profile's, in the order of their values above.
    private static let kinds = [
        "note", "hci.command", "hci.event", "connection", "acl", "l2cap", "l2cap.signaling", "rfcomm", "sdp", "iap2",
        "iap2.control", "iap2.identification", "att", "gatt.long_read", "gatt.long_write", "gatt.long_write_cancelled",
        "undecoded", "a5", "message", "diagnostic", "smp", "log", "log.alignment", "hci.debug",
    ]

    /// Borrowed: an initializer would otherwise take a copy of the event (a reference count).
    public init(_ e: borrowing Event) {
        switch e.body {
        case .note: self = .note
        case .hciCommand: self = .hciCommand
        case .hciEvent: self = .hciEvent
        case .hciDebug: self = .hciDebug
        case .connection: self = .connection
        case .acl: self = .acl
        case .l2cap: self = .l2cap
        case .l2capSignaling: self = .l2capSignaling
        case .smp: self = .smp
        case .profile(let m): self.init(m.profile)
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
