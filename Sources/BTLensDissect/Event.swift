import BTLensCore

/// The protocol layer an event belongs to; its depth gives the indentation in verbose output.
public enum Layer: String, Sendable, CaseIterable {
    case capture = "CAPTURE"
    case hci = "HCI"
    /// The LE link layer of a sniffer capture, beside HCI.
    case linkLayer = "LL"
    case acl = "ACL"
    case l2cap = "L2CAP"
    case rfcomm = "RFCOMM"
    case iap2 = "IAP2"
    case att = "ATT"
    case gatt = "GATT"
    case a5 = "A5"
    /// AVDTP, AVRCP, HFP: profiles beside the vendor protocol.
    case profile = "PROFILE"
    /// The app's own log (`--app-log`).
    case app = "APP"

    public var depth: Int {
        switch self {
        case .capture, .hci, .linkLayer, .acl, .app: return 0
        case .l2cap: return 1
        case .att, .gatt, .rfcomm: return 2
        case .iap2, .profile: return 3
        case .a5: return 4
        }
    }
}

/// One thing the decoder has to say about a record. Data only: renderers decide how it looks.
public struct Event: Sendable {
    public var record: Int
    public var timestamp: Timestamp
    public var direction: Direction?
    /// The connection handle, when the event belongs to one.
    public var connection: UInt16?
    /// False for lower-layer detail that only `--verbose` shows.
    public var isTop: Bool
    public var body: EventBody

    public init(
        record: Int, timestamp: Timestamp, direction: Direction?, connection: UInt16?, isTop: Bool,
        body: EventBody
    ) {
        self.record = record
        self.timestamp = timestamp
        self.direction = direction
        self.connection = connection
        self.isTop = isTop
        self.body = body
    }

    /// The note that says a followed input started again (`follow.restart`), placed at the new
    /// source's first event `e`.
    public static func followRestart(_ why: String, at e: Event) -> Event {
        Event(
            record: e.record, timestamp: e.timestamp, direction: nil, connection: nil, isTop: true,
            body: .note(category: "follow.restart", text: why))
    }

    /// A note: a capture's text, which may be far older than its traffic (an iPhone's header notes):
    /// no time origin.
    public var isNote: Bool {
        if case .note = body { return true }
        return false
    }

    /// Bytes of packet data the event holds (a value, a payload, undecoded bytes, a note's text):
    /// what a queue of events weighs, besides the records they came from.
    public var heldBytes: Int {
        switch body {
        case .att(let a): return a.value?.count ?? 0
        case .gattValue(let g): return g.value.count
        case .frame(let a): return a.frame.payload.count
        case .undecoded(let u): return u.bytes.count
        case .hciDebug(let d): return d.bytes.count
        case .note(_, let text): return text.utf8.count
        case .log(let l): return l.message.utf8.count
        default: return 0
        }
    }

    /// The event with its ATT value copied out of the record it is a slice of: kept for long, the
    /// slice would keep the whole read chunk of its record (up to 1 MiB) alive.
    public func detached() -> Event {
        guard case .att(var a) = body, let value = a.value else { return self }
        a.value = ArraySlice(Array(value))
        var e = self
        e.body = .att(a)
        return e
    }

    public var layer: Layer {
        switch body {
        case .note, .diagnostic: return .capture
        case .hciCommand, .hciEvent, .hciDebug, .connection: return .hci
        case .acl: return .acl
        case .l2cap, .l2capSignaling, .smp, .undecoded: return .l2cap
        case .rfcomm, .sdp: return .rfcomm
        case .iap2, .iap2Control, .iap2Identification: return .iap2
        case .att: return .att
        case .gattValue: return .gatt
        case .frame: return .a5
        case .profile(let m): return m.profile == .ll ? .linkLayer : .profile
        case .log, .logAlignment: return .app
        }
    }
}

public enum EventBody: Sendable {
    case note(category: String, text: String)
    case hciCommand(HCICommandInfo)
    case hciEvent(HCIEventInfo)
    /// A controller's debug record on a reserved ACL header word, which is no connection's.
    indirect case hciDebug(ControllerDebug)
    // Boxed (`indirect`, or a class): the payloads larger than an ATT PDU's. Events travel in
    // batches between threads, and every event would otherwise pay for the largest.
    indirect case connection(ConnectionChange)
    case acl(ACLFragmentInfo)
    case l2cap(L2CAPInfo)
    case l2capSignaling(L2CAPSignalingInfo)
    case smp(SMPInfo)
    case profile(ProfileMessage)
    indirect case log(AppLogEntry)
    case logAlignment(AppLogAlignment)
    case rfcomm(RFCOMMInfo)
    case sdp(SDPInfo)
    case iap2(IAP2PacketInfo)
    case iap2Control(IAP2ControlInfo)
    indirect case iap2Identification(IAP2Identification)
    case att(ATTInfo)
    case gattValue(GATTValue)
    case frame(FrameInfo)
    case undecoded(UndecodedInfo)
    indirect case diagnostic(Diagnostic)
}

public struct HCICommandInfo: Sendable {
    public var opcode: HCIOpcode
    public var parameterLength: Int
    public var fields: [(String, FieldValue)]
    /// Parameter bytes of a vendor command, which nothing decodes (`stats` counts them apart).
    public var vendorBytes = 0
}

public struct HCIEventInfo: Sendable {
    public var code: HCIEventCode
    public var subevent: LESubeventCode?
    public var parameterLength: Int
    public var fields: [(String, FieldValue)]
    /// Parameter bytes nothing decodes: a vendor event's, or what a vendor command's completion returns.
    public var vendorBytes = 0

    public var name: String { subevent?.name ?? code.name }
}

public struct ConnectionChange: Sendable {
    /// `cancelled`: the host withdrew the attempt (Create Connection Cancel), which ends it with status 0x02.
    public enum Change: String, Sendable { case opened, closed, inferred, failed, cancelled }
    public var change: Change
    public var info: ConnectionInfo
    /// For `closed`: the reason; for `failed`: the status.
    public var code: HCIErrorCode?
}

public struct ACLFragmentInfo: Sendable {
    public var handle: UInt16
    public var boundary: ACLPacketBoundary
    public var broadcast: UInt8
    public var length: Int

    /// `boundary` is the header's two-bit flag.
    public init(handle: UInt16, boundary: UInt8, broadcast: UInt8, length: Int) {
        self.handle = handle
        self.boundary = ACLPacketBoundary(flag: boundary)
        self.broadcast = broadcast
        self.length = length
    }
}

public struct L2CAPInfo: Sendable {
    public var cid: UInt16
    public var length: Int
    /// The record in which the PDU's first fragment arrived.
    public var firstRecord: Int
    public var truncated: Bool
    /// The records of the PDU's continuing fragments, in order (the last
    /// `ACLReassembler.recordLimit`); empty for a PDU in one fragment.
    public var continuations: [Int] = []
}

/// Bytes that reached no decoder, with where they were found.
public struct UndecodedInfo: Sendable {
    public var what: String
    /// The packet's full size.
    public var length: Int
    /// Its first bytes, at most `--limit undecoded-bytes` of them.
    public var bytes: [UInt8]
    /// Bytes of the packet not kept in `bytes`.
    public var bytesCut: Int { length - bytes.count }
}
