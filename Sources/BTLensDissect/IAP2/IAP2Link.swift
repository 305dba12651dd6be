import BTLensCore

/// An iAP2 link packet as an event.
public struct IAP2PacketInfo: Sendable {
    public var kind: IAP2PacketKind
    public var psn: UInt8?
    public var pan: UInt8?
    public var session: UInt8?
    /// control, file transfer, external accessory (from the SYN's session table).
    public var sessionType: String?
    public var payloadLength: Int
    public var detail: String?
}

/// A control-session message as an event.
public struct IAP2ControlInfo: Sendable {
    public var id: UInt16
    public var name: String
    public var fields: [(String, FieldValue)]
}

/// iAP2 on one RFCOMM channel of one connection: a framer per direction, the session table of
/// the last SYN, PSN tracking per direction, the EA protocols and sessions. Freed on disconnection.
struct IAP2Link {
    enum Output {
        case packet(IAP2PacketInfo)
        case control(IAP2ControlInfo)
        case identification(IAP2Identification)
        /// External Accessory data: session id, its protocol string (if its start was captured), bytes.
        case ea(UInt16, String?, ArraySlice<UInt8>)
        case diagnostic(Diagnostic)
    }

    /// What the stream's first item (either way) says of a guess that it is iAP: a detect, an iAP1
    /// frame or a link packet whose checksums hold confirms it; anything else contradicts it.
    enum Verdict: Equatable {
        case confirmed
        case contradicted(Contradiction)
    }

    enum Contradiction: Equatable {
        case noPacket, headerChecksum, payloadChecksum, iap1Checksum

        var found: String {
            switch self {
            case .noPacket: return "bytes that form no iAP2 packet"
            case .headerChecksum: return "a link header whose checksum fails"
            case .payloadChecksum: return "a link packet whose payload checksum fails"
            case .iap1Checksum: return "an iAP1 frame whose checksum fails"
            }
        }
    }

    /// Recent payloads kept per direction to tell a retransmission from PSN reuse (a window is ≤ 127).
    static let recentLimit = 128

    /// nil until the first item, or bytes skipped, in either direction.
    private(set) var verdict: Verdict?

    private var framers = [IAP2Framer(), IAP2Framer()]
    private var sessions: [UInt8: UInt8] = [:]
    /// False until a SYN is captured: session types are then guessed from the payloads.
    private var synSeen = false
    private var now: Int64 = 0
    private var lastPSN: [UInt8?] = [nil, nil]
    struct Sent {
        var payload: [UInt8]
        var pan: UInt8
        var time: Int64
    }
    private var recent: [[UInt8: Sent]] = [[:], [:]]
    /// RetransmissionTimeout from the SYN (ms): a byte-identical copy sooner than this is a capture duplicate.
    private var retransmissionTimeout: Int64 = 0
    private var protocols: [UInt8: String] = [:]
    private var eaSessions: [UInt16: String] = [:]

    static func sessionTypeName(_ type: UInt8) -> String {
        let names = IAP2LinkPacket.sessionTypes
        return names.indices.contains(Int(type)) ? names[Int(type)] : "type \(type)"
    }

    mutating func push(_ bytes: ArraySlice<UInt8>, direction: Direction, time: Timestamp) -> [Output] {
        now = time.microseconds
        let d = Int(direction.rawValue)
        framers[d].append(bytes)
        var out: [Output] = []
        while let item = framers[d].next() {
            if verdict == nil { verdict = Self.verdict(item) }
            switch item {
            case .detect:
                out.append(
                    .packet(
                        IAP2PacketInfo(kind: .detect, payloadLength: 0, detail: "FF 55 02 00 EE 10: iAP2 supported")))
            case .iap1(let frame):
                let what =
                    frame == [0xff, 0x55, 0x04, 0x00, 0x02, 0x04, 0xee, 0x08]
                    ? "iAP1 NAK of the iAP2 detect: iAP1 only"
                    : frame == [0xff, 0x55, 0x02, 0x00, 0x00, 0xfe]
                        ? "iAP1 RequestIdentify: iAP1 only" : "iAP1 frame \(Hex.spaced(frame))"
                out.append(.packet(IAP2PacketInfo(kind: .iap1, payloadLength: frame.count, detail: what)))
            case .skipped(let n):
                var diag = Diagnostic(
                    IAP2Diagnostics.resync, "skipped \(n) bytes that form no iAP2 packet",
                    fields: [("skipped_bytes", .int(n))])
                diag.undecodedBytes = n
                out.append(.diagnostic(diag))
            case .badHeader:
                out.append(
                    .diagnostic(
                        Diagnostic(
                            IAP2Diagnostics.headerChecksum,
                            "FF 5A header whose checksum fails; resyncing on the next byte")))
            case .packet(let p):
                out += packet(p, d)
            }
        }
        if verdict == nil, framers[d].skippedBytes > 0 { verdict = .contradicted(.noPacket) }
        return out
    }

    static func verdict(_ item: IAP2Framer.Item) -> Verdict {
        switch item {
        case .detect: return .confirmed
        // iAP1: the bytes from the length through the checksum sum to 0 mod 256 (docs/protocols/iap2.md, iAP1).
        case .iap1(let frame): return frame.dropFirst(2).reduce(0, &+) == 0 ? .confirmed : .contradicted(.iap1Checksum)
        case .packet(let p): return p.payloadChecksumOK ? .confirmed : .contradicted(.payloadChecksum)
        case .skipped: return .contradicted(.noPacket)
        case .badHeader: return .contradicted(.headerChecksum)
        }
    }

    private mutating func packet(_ p: IAP2LinkPacket, _ d: Int) -> [Output] {
        var out: [Output] = []
        var info = packetInfo(p)
        if !p.payloadChecksumOK { out.append(.diagnostic(Self.payloadChecksumDiagnostic(p))) }
        if p.control & 0x80 != 0 {
            syn(p, &info)
            lastPSN[d] = p.psn
            recent[d] = [p.psn: Sent(payload: p.payload, pan: p.pan, time: now)]
            out.insert(.packet(info), at: 0)
            return out
        }
        if p.control & 0x10 != 0 {
            lastPSN = [nil, nil]
            recent = [[:], [:]]
        }
        if p.control == 0x60 {
            // Apple's stack lists the PSNs received out of order; others list the missing ones.
            info.detail = "out-of-sequence PSNs (Apple semantics): " + p.payload.map(String.init).joined(separator: " ")
        }
        guard p.control == 0x40, !p.payload.isEmpty else {
            out.insert(.packet(info), at: 0)
            return out
        }
        // A data packet: new, a gap, a retransmission, or PSN reuse.
        if let last = lastPSN[d] {
            let gap = p.psn &- last
            if gap == 0 || gap >= 128 {
                if let earlier = recent[d][p.psn], earlier.payload == p.payload {
                    let diagnostic = resent(p, d, earlier, &info)
                    out.insert(.packet(info), at: 0)
                    out.append(.diagnostic(diagnostic))
                    return out
                }
                out.append(
                    .diagnostic(
                        Diagnostic(
                            IAP2Diagnostics.psnReuse,
                            "PSN \(p.psn) again with a different payload (last new PSN \(last))",
                            fields: [("psn", .int(p.psn)), ("last", .int(last))])))
            } else if gap > 1 {
                out.append(.diagnostic(Self.sequenceGap(p, last: last, gap: gap)))
            }
        }
        lastPSN[d] = p.psn
        if recent[d].count >= Self.recentLimit { recent[d].removeAll() }
        recent[d][p.psn] = Sent(payload: p.payload, pan: p.pan, time: now)
        out.insert(.packet(info), at: 0)
        out += sessionPayload(p)
        return out
    }

    /// The packet's header fields, with its session's type from the SYN, or guessed when no SYN was captured.
    private func packetInfo(_ p: IAP2LinkPacket) -> IAP2PacketInfo {
        var info = IAP2PacketInfo(
            kind: p.kind, psn: p.psn, pan: p.pan, session: p.session,
            sessionType: sessions[p.session].map(Self.sessionTypeName), payloadLength: p.payload.count)
        if info.sessionType == nil, !synSeen, p.session != 0, !p.payload.isEmpty {
            info.sessionType =
                p.payload.starts(with: [0x40, 0x40])
                ? "control (guessed: no SYN captured)" : "external accessory (guessed: no SYN captured)"
        }
        return info
    }

    private static func payloadChecksumDiagnostic(_ p: IAP2LinkPacket) -> Diagnostic {
        Diagnostic(
            IAP2Diagnostics.payloadChecksum,
            "PSN \(p.psn): payload checksum \(Hex.value(p.payloadChecksum ?? 0, width: 2)), expected \(Hex.value(p.expectedPayloadChecksum ?? 0, width: 2))",
            fields: [
                ("expected", .int(p.expectedPayloadChecksum ?? 0)),
                ("actual", .int(p.payloadChecksum ?? 0)),
            ])
    }

    /// A data packet whose PSN and payload were seen already: a retransmission, or the capture
    /// logging the packet twice.
    private mutating func resent(
        _ p: IAP2LinkPacket, _ d: Int, _ earlier: Sent, _ info: inout IAP2PacketInfo
    ) -> Diagnostic {
        // Apple's stack refreshes the PAN when it resends; an identical copy inside the
        // retransmission timeout is the capture logging the packet twice.
        let apart = now.saturatingSubtracting(earlier.time)
        let duplicate = earlier.pan == p.pan && apart < retransmissionTimeout * 1000
        recent[d][p.psn] = Sent(payload: p.payload, pan: p.pan, time: now)
        info.detail = duplicate ? "duplicate" : "retransmission"
        return duplicate
            ? Diagnostic(
                IAP2Diagnostics.duplicate,
                "PSN \(p.psn) captured twice, byte for byte, \(apart) µs apart (retransmission timeout \(retransmissionTimeout) ms)",
                fields: [("psn", .int(p.psn))])
            : Diagnostic(
                IAP2Diagnostics.retransmission,
                "PSN \(p.psn) sent again with the same payload (PAN \(earlier.pan) → \(p.pan))",
                fields: [("psn", .int(p.psn))])
    }

    /// Data packets between the last new PSN and this one were not captured.
    private static func sequenceGap(_ p: IAP2LinkPacket, last: UInt8, gap: UInt8) -> Diagnostic {
        Diagnostic(
            IAP2Diagnostics.sequenceGap,
            "expected PSN \(last &+ 1), got \(p.psn): \(gap - 1) packet\(gap == 2 ? "" : "s") not seen",
            fields: [("expected", .int(last &+ 1)), ("actual", .int(p.psn)), ("missing", .int(gap - 1))])
    }

    /// SYN / SYN+ACK: link parameters and the session table.
    private mutating func syn(_ p: IAP2LinkPacket, _ info: inout IAP2PacketInfo) {
        var r = ByteReader(p.payload)
        guard let version = try? r.u8(), let outstanding = try? r.u8(), let maxLength = try? r.u16be(),
            let rto = try? r.u16be(), let ackTimeout = try? r.u16be(), let retries = try? r.u8(), let acks = try? r.u8()
        else {
            info.detail = "link parameters cut short"
            return
        }
        sessions = [:]
        synSeen = true
        retransmissionTimeout = Int64(rto)
        var list: [String] = []
        while let id = try? r.u8(), let type = try? r.u8(), let v = try? r.u8() {
            sessions[id] = type
            list.append("\(id)=\(Self.sessionTypeName(type)) v\(v)")
        }
        info.detail =
            "version \(version), \(outstanding) outstanding, max \(maxLength) bytes, retransmit \(rto) ms, ack \(ackTimeout) ms, \(retries) retries, \(acks) acks; sessions \(list.joined(separator: ", "))"
    }

    private mutating func sessionPayload(_ p: IAP2LinkPacket) -> [Output] {
        // Without a captured SYN, `40 40` marks a control message and anything else is taken as EA data.
        let type = sessions[p.session] ?? (synSeen ? nil : p.payload.starts(with: [0x40, 0x40]) ? 0 : 2)
        switch type {
        case 2?:
            var r = ByteReader(p.payload)
            guard let id = try? r.u16be() else { return [] }
            return [.ea(id, eaSessions[id], r.rest())]
        case 0?:
            return control(p.payload)
        case nil where p.payload.starts(with: [0x40, 0x40]):
            return control(p.payload)
        case 1?:
            return [.packet(Self.fileTransfer(p.payload))]
        default:
            return []
        }
    }

    /// File transfer datagram: identifier, control (0x80 first, 0x40 last, low 4 bits the type), data.
    static func fileTransfer(_ payload: [UInt8]) -> IAP2PacketInfo {
        let types = IAP2LinkPacket.fileTransferTypes
        guard payload.count >= 2 else {
            return IAP2PacketInfo(
                kind: .fileTransfer, payloadLength: payload.count,
                detail: "datagram of \(payload.count) bytes: too short")
        }
        let control = payload[1]
        let type = Int(control & 0x0f)
        var detail = "transfer \(payload[0]) \(type < types.count ? types[type] : "type \(type)")"
        if control & 0x80 != 0 { detail += " first" }
        if control & 0x40 != 0 { detail += " last" }
        if type == 4, payload.count >= 10 {
            let size = payload[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            detail += ", \(size) bytes"
        } else if payload.count > 2 {
            detail += ", \(payload.count - 2) bytes"
        }
        return IAP2PacketInfo(kind: .fileTransfer, payloadLength: payload.count, detail: detail)
    }

    private mutating func control(_ payload: [UInt8]) -> [Output] {
        let message: IAP2ControlMessage
        do {
            message = try IAP2ControlMessage.parse(payload[...])
        } catch {
            var d = Diagnostic(
                IAP2Diagnostics.controlMalformed,
                "control message of \(payload.count) bytes: needs \(error.needed) bytes at offset \(error.offset), \(error.available) left"
            )
            d.undecodedBytes = payload.count
            return [.diagnostic(d)]
        }
        // Parameters as id:hex, so nothing a message carries is hidden; known messages say more below.
        var fields: [(String, FieldValue)] =
            message.parameters.isEmpty
            ? []
            : [
                (
                    "parameters",
                    .string(
                        message.parameters.map {
                            "\($0.id):\(Hex.string($0.data.prefix(32)))\($0.data.count > 32 ? "…" : "")"
                        }.joined(separator: " "))
                )
            ]
        var out: [Output] = []
        switch message.id {
        case 0x1d01:
            if let ident = try? IAP2Identification(message) {
                for p in ident.protocols { protocols[p.id] = p.name }
                out.append(.identification(ident))
            }
        case 0xea00:
            let pid = message.parameters.first { $0.id == 0 }.flatMap { $0.data.first }
            var sid: UInt16?
            if let data = message.parameters.first(where: { $0.id == 1 })?.data {
                var r = ByteReader(data)
                sid = try? r.u16be()
            }
            if let pid, let sid {
                let name = protocols[pid] ?? "protocol \(pid)"
                eaSessions[sid] = name
                fields = [("protocol_id", .int(pid)), ("ea_session", .int(sid)), ("protocol", .string(name))]
            }
        case 0xaa01, 0xaa02, 0xaa03:
            fields = message.parameters.map { ("parameter_\($0.id)_bytes", .int($0.data.count)) }
        case 0xea01, 0xea03:
            if let data = message.parameters.first(where: { $0.id == 0 })?.data {
                var r = ByteReader(data)
                if let sid = try? r.u16be() { fields = [("ea_session", .int(sid))] }
            }
        default:
            break
        }
        return [.control(IAP2ControlInfo(id: message.id, name: message.name, fields: fields))] + out
    }

    /// What is left in the framers at the end: (direction, junk skipped, partial packet (have, need)).
    func leftovers() -> [(Direction, Int, (have: Int, need: Int)?)] {
        Direction.allCases.compactMap { d in
            let f = framers[Int(d.rawValue)]
            return f.skippedBytes > 0 || f.partial != nil ? (d, f.skippedBytes, f.partial) : nil
        }
    }
}
