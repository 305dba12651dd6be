import BTLensCapture
import BTLensCore
import BTLensCrypto

/// LE packets a sniffer heard over the air (Core v5.4 Vol 6 Part B §2.1): advertising channel PDUs
/// by name, connections followed by access address from their CONNECT_IND, data channel PDUs' LL
/// control procedures, and their L2CAP fragments handed to ACL reassembly as an HCI log's are.
final class LinkLayerLayer {
    static let advertisingAccessAddress: UInt32 = 0x8e89_bed6
    /// Access addresses followed at once; a sniffer follows one or a few connections.
    static let connectionLimit = 64

    let ctx: LayerContext
    let hci: HCILayer
    private let acl: ACLLayer
    /// The connections followed, by access address; one is freed when it terminates.
    var connections: [UInt32: LLConnection] = [:]
    /// The handle the next connection gets.
    var nextHandle: UInt16 = 1
    /// The access addresses and handles of the last connections terminated, newest last: the
    /// LL_TERMINATE_IND may be sent again and acknowledged after the connection is closed (§5.1.3.1).
    var terminated: [(aa: UInt32, handle: UInt16)] = []
    static let terminatedKept = 16
    /// The keys the user gave (`--ltk`, `--keys`).
    let keys: [LinkLayerKey]
    /// Keys given that may still be tried on sessions' first PDUs, in the whole capture: each costs
    /// up to 5 decryptions, so that a capture of many sessions cannot make the work unbounded.
    var keyTrialsLeft = 65_536
    /// The long-term keys pairings in the capture distributed, newest last, for the connections that
    /// encrypt with them later.
    var learnt: [LLLearntKey] = []
    static let learntKept = 64
    /// Said when a connection's link starts or stops being encrypted, as HCI's Encryption Change
    /// says it: the connection's life and ATT's facts follow it.
    /// A rejected LL_ENC_REQ is a failed start, with the reason given.
    var encryptionChanged: (ConnectionKey, HCIErrorCode, Bool, CaptureRecord) -> Void = { _, _, _, _ in }
    /// No connection can be lost before this time (its earliest last PDU plus timeout); nil: look
    /// at the next record, as after a connection opens or its timeout changes.
    var noLossBefore: Timestamp?
    /// The advertising chains awaiting their next part.
    var chains = LLAuxChains()

    init(_ ctx: LayerContext, hci: HCILayer, acl: ACLLayer, keys: [LinkLayerKey]) {
        self.ctx = ctx
        self.hci = hci
        self.acl = acl
        self.keys = keys
    }

    /// Decodes one packet; returns the connection an LL_TERMINATE_IND ended, with its reason.
    func packet(_ r: CaptureRecord) -> (ConnectionKey, HCIErrorCode)? {
        let air = r.air ?? AirPacket()
        chainsOverdue(r)
        if air.crc == .invalid {
            var d = Diagnostic(LLDiagnostics.crcBad, "CRC check failed, expected a valid CRC: packet not decoded")
            d.undecodedBytes = r.payload.count
            ctx.say(r, nil, d)
            return nil
        }
        var reader = ByteReader(r.payload)
        guard let aa = try? reader.u32le() else {
            malformed(r, nil, "a 4-byte access address", found: r.payload.count)
            return nil
        }
        // LE Coded PHY: a coding indicator follows the access address (Vol 6 Part B §2.2).
        if air.phy == 2 { _ = try? reader.u8() }
        let pdu = reader.rest()
        if aa == Self.advertisingAccessAddress {
            advertising(pdu, r)
            return nil
        }
        return data(aa, pdu, air, r)
    }

    private func advertising(_ pdu: ArraySlice<UInt8>, _ r: CaptureRecord) {
        // Channel indexes 0–36 are the secondary advertising channels (Vol 6 Part B §4.4.2.1).
        let secondary = r.air?.channel.map { $0 < 37 } ?? false
        guard let adv = try? LLAdvertisingPDU.decode(pdu, secondary: secondary) else {
            return malformed(r, nil, "an advertising PDU whole as its header says", found: pdu.count)
        }
        emit(secondary ? chained(pdu, adv.message, r) : adv.message, r, nil, connection: nil, isTop: true)
        if let c = adv.connect { open(c, r) }
    }

    private func data(_ aa: UInt32, _ pdu: ArraySlice<UInt8>, _ air: AirPacket, _ r: CaptureRecord) -> (
        ConnectionKey, HCIErrorCode
    )? {
        if connections[aa] == nil, let ended = terminated.last(where: { $0.aa == aa }) {
            afterTerminate(pdu, ended.handle, air, r)
            return nil
        }
        guard let c = connection(aa, r) else { return nil }
        guard var header = try? LLDataHeader(pdu) else {
            malformed(r, c.key.handle, "a data channel PDU whole as its header says", found: pdu.count)
            return nil
        }
        let sender = air.sender ?? (c.lastSender == .central ? .peripheral : .central)
        let resent = sequenced(c, sender, guessed: air.sender == nil, header, air, r)
        var r = r
        r.direction = sender == .central ? .sent : .received
        var ended: (ConnectionKey, HCIErrorCode)?
        var decrypted = false
        // Encrypted: in a session, or as the sniffer's header says (its MIC checked).
        let encrypted = air.decrypted || c.encryption.active || air.mic != .unchecked
        if !resent, !header.payload.isEmpty, encrypted, !isPlainPauseResponse(header, c) {
            guard header.payload.count > LLCipher.micSize else {
                malformed(
                    r, c.key.handle, "an encrypted PDU of at least 5 octets (payload and MIC)", found: header.length)
                // Heard damaged: its sender may have used a packet counter on it.
                if c.encryption.cipher != nil { c.encryption.failed[sender == .central ? 0 : 1] += 1 }
                return nil
            }
            guard let plain = decrypt(header, c, sender, air, r) else { return nil }
            header.payload = plain[...]
            decrypted = true
        }
        if resent || header.payload.isEmpty {
            shown(header, c, resent: resent, r)
        } else if header.llid == 3 {
            ended = control(header, c, decrypted: decrypted, r)
        } else if header.llid == 0 {
            malformed(r, c.key.handle, "LLID 1, 2 or 3", found: header.payload.count, "LLID 0 (reserved)")
        } else {
            emit(
                header.message("LL Data", decrypted: decrypted), r, r.direction, connection: c.key.handle, isTop: false)
            acl.linkLayerFragment(c.key, start: header.llid == 2, header.payload, r)
        }
        // A terminated connection's state is freed; its access address is remembered a while.
        if ended != nil {
            connections[aa] = nil
            terminated = Array(terminated.suffix(Self.terminatedKept - 1)) + [(aa, c.key.handle)]
        }
        return ended
    }

    /// A PDU of a connection after its LL_TERMINATE_IND (the terminate sent again, its acknowledgement):
    /// shown in `--verbose`, not decoded.
    private func afterTerminate(_ pdu: ArraySlice<UInt8>, _ handle: UInt16, _ air: AirPacket, _ r: CaptureRecord) {
        guard let header = try? LLDataHeader(pdu) else {
            return malformed(r, handle, "a data channel PDU whole as its header says", found: pdu.count)
        }
        let direction = air.sender.map { $0 == .central ? Direction.sent : .received }
        emit(header.message("After LL_TERMINATE_IND"), r, direction, connection: handle, isTop: false)
    }

    /// A PDU shown and not decoded further: a retransmission, an empty PDU.
    private func shown(_ header: LLDataHeader, _ c: LLConnection, resent: Bool, _ r: CaptureRecord) {
        if resent {
            var m = header.message("Retransmission")
            m.fields.append(("retransmission", .bool(true)))
            return emit(m, r, r.direction, connection: c.key.handle, isTop: !header.payload.isEmpty)
        }
        emit(header.message("Empty PDU"), r, r.direction, connection: c.key.handle, isTop: false)
    }

    private func control(_ header: LLDataHeader, _ c: LLConnection, decrypted: Bool, _ r: CaptureRecord) -> (
        ConnectionKey, HCIErrorCode
    )? {
        guard let (opcode, message) = try? LLControlPDU.decode(header.payload) else {
            malformed(
                r, c.key.handle, "an LL control PDU as long as its opcode's parameters", found: header.payload.count)
            return nil
        }
        if opcode == LLControlPDU.connectionUpdate { connectionUpdate(header.payload, c) }
        var m = message
        m.fields = header.message("", decrypted: decrypted).fields + m.fields
        emit(m, r, r.direction, connection: c.key.handle, isTop: true)
        encryptionControl(opcode, header.payload, c, r)
        guard opcode == LLControlPDU.terminate, let reason = header.payload.dropFirst().first else { return nil }
        return (c.key, HCIErrorCode(rawValue: reason))
    }

    /// An `ll` event; one below the top (`--verbose` only) is not even built unless shown.
    func emit(
        _ m: @autoclosure () -> ProfileMessage, _ r: CaptureRecord, _ direction: Direction?, connection: UInt16?,
        isTop: Bool
    ) {
        guard isTop || ctx.lowerLayers else { return }
        let m = m()
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: direction, connection: connection, isTop: isTop,
                body: .profile(m)))
    }

    func malformed(_ r: CaptureRecord, _ handle: UInt16?, _ expected: String, found: Int, _ what: String? = nil) {
        // A record the capture cut short is said as such (`capture.truncated`), not as a malformed PDU.
        guard !r.isTruncated else { return }
        var d = Diagnostic(
            LLDiagnostics.pduMalformed, "expected \(expected), found \(what ?? "\(found) bytes")",
            fields: [("present", .int(found))])
        d.undecodedBytes = found
        ctx.say(r, handle, d)
    }
}
