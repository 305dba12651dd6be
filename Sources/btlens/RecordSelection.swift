import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter

/// Which records `convert --filter` writes: every record holding a byte of an event the filter
/// selects (every fragment of its L2CAP PDU, every PDU of a frame joined across values or K-frames,
/// every RFCOMM frame of an iAP2 packet, every read of a long value), and the records the smaller
/// capture needs to decode those events as the whole one does and to find in it nothing the whole
/// one does not: HCI commands and events (connections), notes, L2CAP signalling, SDP, ATT discovery
/// and MTU exchange, CCCD writes and their responses (subscriptions), each connection's first ATT
/// PDU (it reached ATT), the response to a request kept (it was answered), RFCOMM control, iAP2
/// link setup and control. Fed the analyzer's events with the lower layers (`l2cap`), in order.
///
/// Bounded: one bit per record of the capture; per connection and direction the last `partLimit`
/// records of a PDU or frame in progress, per connection the last `partLimit` ATT PDUs, and the
/// parts of the last `partLimit` frames (a response to an older request is kept without it).
final class RecordSelection {
    static let partLimit = 256

    private var bits: [UInt64] = []
    private let filter: DisplayFilter
    /// The ACL records of the last PDU completed, per connection and direction.
    private var completed: [Link: [Int]] = [:]
    /// Records of PDUs since the last frame on a stream (an ATT handle, or a connection's RFCOMM/iAP2 data).
    private var sinceFrame: [Stream: [Int]] = [:]
    /// A connection's last `partLimit` ATT PDUs, each by the record that completed it, with all its
    /// records: a long read or write names the record its first PDU completed in.
    private var attPDUs: [UInt16: [(end: Int, parts: [Int])]] = [:]
    /// The records of the last `partLimit` frames, by the record that completed each: a response
    /// selected needs its request, or it is not paired.
    private var frameParts: [Int: [Int]] = [:]
    private var frameOrder: [Int] = []
    private(set) var selected = 0
    /// The whole capture's findings by id, that the smaller one is checked against.
    private(set) var findings: [String: Int] = [:]
    /// Connections whose first ATT PDU was kept, and those whose CCCD write awaits its response.
    private var reachedATT: Set<UInt16> = []
    private var subscribing: Set<UInt16> = []
    /// The RFCOMM records since the last iAP2 packet, per link, and those of the last packet: a packet
    /// (and the control message it carries) needs every record it spans.
    private var sincePacket: [Link: [Int]] = [:]
    private var packetParts: [Link: [Int]] = [:]
    /// Credit-based channels (connection << 16 | CID) from their signalling: an SDU's K-frames are its parts.
    private var creditChannels: Set<UInt32> = []

    private struct Link: Hashable {
        var connection: UInt16
        var direction: Direction?
    }

    private struct Stream: Hashable {
        var link: Link
        var attHandle: UInt16?
        /// A credit-based channel's receiving CID.
        var cid: UInt16?
    }

    init(_ filter: DisplayFilter) { self.filter = filter }

    func contains(_ record: Int) -> Bool {
        let i = record / 64
        return i >= 0 && i < bits.count && bits[i] & (1 << UInt64(record % 64)) != 0
    }

    private func keep(_ record: Int) {
        guard record > 0 else { return }
        let i = record / 64
        if i >= bits.count { bits += [UInt64](repeating: 0, count: i - bits.count + 1) }
        bits[i] |= 1 << UInt64(record % 64)
    }

    /// Records that are not ACL data are kept whole: they set up what the data needs.
    func record(_ r: CaptureRecord) {
        switch r.kind {
        case .aclData, .scoData, .isoData: break
        default: keep(r.number)
        }
    }

    func event(_ e: Event) {
        let selects = filter.matches(e)
        if selects && e.isTop { selected += 1 }
        if e.isTop, case .diagnostic(let d) = e.body { findings[d.id, default: 0] += 1 }
        guard let connection = e.connection else {
            if selects || Self.isContext(e) { keep(e.record) }
            return
        }
        let link = Link(connection: connection, direction: e.direction)
        var parts = [e.record]
        if let pdu = completed[link], pdu.last == e.record { parts = pdu }
        var needed = false
        switch e.body {
        case .connection(let c):
            if c.change == .opened {
                reachedATT.remove(connection)
                creditChannels = creditChannels.filter { $0 >> 16 != UInt32(connection) }
            }
        case .l2capSignaling(let s):
            for cid in s.creditCIDs { creditChannels.insert(UInt32(connection) << 16 | UInt32(cid)) }
        case .acl:
            // Its record comes with its PDU's (`l2cap`).
            return
        case .l2cap(let l):
            // The last `partLimit` records of the PDU's fragments (the reassembler keeps as many continuations).
            let pdu = Array(([l.firstRecord] + l.continuations).suffix(Self.partLimit))
            completed[link] = pdu
            if creditChannels.contains(UInt32(connection) << 16 | UInt32(l.cid)) {
                for r in pdu { append(&sinceFrame[Stream(link: link, attHandle: nil, cid: l.cid), default: []], r) }
            }
            return
        case .att(let a):
            needed = reachedATT.insert(connection).inserted || subscribes(a, connection)
            for r in parts { append(&sinceFrame[Stream(link: link, attHandle: a.handle, cid: nil), default: []], r) }
            // Changed in place: a copy of the list per PDU would cost 256 entries.
            if attPDUs[connection]?.count ?? 0 >= Self.partLimit { attPDUs[connection]?.removeFirst() }
            attPDUs[connection, default: []].append((e.record, parts))
        case .rfcomm:
            for r in parts {
                append(&sinceFrame[Stream(link: link, attHandle: nil, cid: nil), default: []], r)
                append(&sincePacket[link, default: []], r)
            }
        case .iap2:
            for r in parts { append(&sinceFrame[Stream(link: link, attHandle: nil, cid: nil), default: []], r) }
            var packet = sincePacket[link] ?? []
            for r in parts { append(&packet, r) }
            packetParts[link] = packet
            // The next packet may begin in the record this one ended in.
            sincePacket[link] = [e.record]
            parts = packet
        case .iap2Control, .iap2Identification:
            parts = packetParts[link] ?? parts
        case .frame(let f):
            let stream = Stream(link: link, attHandle: f.attHandle, cid: f.l2capChannel?.cid)
            parts += sinceFrame[stream] ?? []
            // The next frame may begin in the record this one ended in.
            sinceFrame[stream] = [e.record]
            if let request = f.pairing?.requestRecord {
                parts += frameParts[request] ?? [request]
                needed = contains(request)
            }
            remember(e.record, parts)
        case .gattValue(let g):
            for pdu in attPDUs[connection] ?? [] where pdu.end >= g.firstRecord && pdu.end <= e.record {
                parts += pdu.parts
            }
        case .diagnostic(let d):
            if case .int(let detected)? = d.field("detected_record") { parts.append(Int(detected)) }
        default: break
        }
        if selects || needed || Self.isContext(e) { parts.forEach(keep) }
    }

    /// Whether an ATT PDU writes a CCCD, or answers such a write: notifications kept need their subscription.
    private func subscribes(_ a: ATTInfo, _ connection: UInt16) -> Bool {
        let opcode = a.opcode
        if opcode == .writeRequest || opcode == .writeCommand,
            a.uuid?.sig16 == GATTNames.clientCharacteristicConfiguration
        {
            if opcode == .writeRequest { subscribing.insert(connection) }
            return true
        }
        // A Write Response, or the Error Response that refused the write.
        return (opcode == .writeResponse || opcode == .errorResponse) && subscribing.remove(connection) != nil
    }

    private func remember(_ record: Int, _ parts: [Int]) {
        if frameParts[record] == nil { frameOrder.append(record) }
        frameParts[record] = parts
        if frameOrder.count > Self.partLimit { frameParts[frameOrder.removeFirst()] = nil }
    }

    /// Keeps the last `partLimit` records: the newest are those a frame or long write ends with.
    private func append(_ list: inout [Int], _ record: Int) {
        guard list.last != record else { return }
        if list.count >= Self.partLimit { list.removeFirst() }
        list.append(record)
    }

    /// Events the decoding of others depends on: connections, channels, services, discovery, sessions.
    private static func isContext(_ e: Event) -> Bool {
        switch e.body {
        case .note, .hciCommand, .hciEvent, .connection, .l2capSignaling, .smp, .sdp, .iap2Control,
            .iap2Identification, .profile:
            return true
        // Errors, MTU exchange, discovery and reads: the opcodes up to Read By Group Type Response.
        case .att(let a):
            return (ATTOpcode.errorResponse.rawValue...ATTOpcode.readByGroupTypeResponse.rawValue)
                .contains(a.opcode.rawValue)
        case .rfcomm(let f): return f.dlci == 0 || f.frame != .known(.uih)
        case .iap2(let p): return p.kind != .data && p.kind != .ack
        default: return false
        }
    }
}
