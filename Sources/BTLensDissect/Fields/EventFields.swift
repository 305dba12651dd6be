import BTLensCore

/// The declared fields of every event type (docs/jsonl.md), in the order the JSONL writer writes
/// them. Keys outside these lists are a packet's or diagnostic's parameters (`parameters(of:)`),
/// named by the decoders and listed in `ParameterNames`.
public enum EventFields {
    /// What every event has, whatever its type (a log line's line has no `record` or `direction`).
    public static let type = EventField("type", .string, "the event type") { e, _ in .string(EventType(e).name) }
    public static let record = EventField("record", .integer, "the capture record, 1-based (Wireshark's frame number)")
    {
        e, _ in .int(Int64(e.record))
    }
    public static let time = EventField("time", .time, "the record's time, UTC with microseconds") { e, _ in
        .int(e.timestamp.microseconds)
    }
    public static let direction = EventField("direction", .string, "sent (host to controller) or received") {
        e, _ in e.direction.map { .string($0 == .sent ? "sent" : "received") }
    }

    /// The keys every event answers to in a filter, whatever its type.
    public static let common = [type, record, time, direction]

    /// The fields of `t`, in the order the line has them; the parameters come after the last
    /// declared field but `services` and `fields`' own.
    public static func fields(of t: EventType) -> [EventField] { byType[t.rawValue] }

    private static let byType: [[EventField]] = EventType.allCases.map(declared)

    /// Every declared key, of any type: a packet's parameters may have the name of another type's
    /// field (an HCI event's `status`, a diagnostic's `att_handle`).
    public static let keys = Set(byType.joined().map(\.key))

    private static func declared(_ t: EventType) -> [EventField] {
        let head = [type, record, time, direction]
        switch t {
        case .note: return head + note
        case .hciCommand: return head + hciCommand
        case .hciEvent: return head + hciEvent
        case .hciDebug: return head + hciDebug
        case .connection: return head + connectionChange
        case .acl: return head + acl
        case .l2cap: return head + l2cap
        case .l2capSignaling: return head + l2capSignaling
        case .rfcomm: return head + rfcomm
        case .sdp: return head + sdp
        case .iap2: return head + iap2
        case .iap2Control: return head + iap2Control
        case .iap2Identification: return head + identification
        case .att: return head + att
        case .gattLongRead, .gattLongWrite, .gattLongWriteCancelled: return head + gattValue
        case .undecoded: return head + undecoded
        case .a5: return head + frame.filter { $0.key != "framing" }
        case .message: return head + frame
        case .diagnostic: return diagnostic
        case .smp: return head + smp
        case .log: return [type, time] + log
        case .logAlignment: return [type, time]
        default: return head + profile  // a profile's messages
        }
    }

    /// A packet's or diagnostic's parameters, by name, for the types that have them.
    public static func parameters(of e: Event) -> [(String, FieldValue)]? {
        switch e.body {
        case .hciCommand(let c): return c.fields
        case .hciEvent(let h): return h.fields
        case .l2capSignaling(let c): return c.fields
        case .smp(let p): return p.fields
        case .profile(let m): return m.fields
        case .log(let l): return l.fields
        case .logAlignment(let a): return a.fields
        case .rfcomm(let f): return f.fields
        case .sdp(let s): return s.fields
        case .iap2Control(let c): return c.fields
        case .att(let a): return a.fields
        case .diagnostic(let d): return d.fields
        case .note, .hciDebug, .connection, .acl, .l2cap, .iap2, .iap2Identification, .gattValue, .undecoded,
            .frame:
            return nil
        }
    }

    /// Whether events of `t` have parameters after their declared fields.
    public static func hasParameters(_ t: EventType) -> Bool {
        switch t {
        case .note, .hciDebug, .connection, .acl, .l2cap, .iap2, .iap2Identification, .gattLongRead,
            .gattLongWrite, .gattLongWriteCancelled, .undecoded, .a5, .message:
            return false
        default: return true
        }
    }
}
