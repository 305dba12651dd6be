import BTLensCapture
import BTLensCore

/// ACL data packets: their header read, their connection made known to HCI, their fragments
/// reassembled into L2CAP PDUs for the L2CAP layer.
final class ACLLayer: ConnectionLayer {
    private let ctx: LayerContext
    private let hci: HCILayer
    private let l2cap: L2CAPLayer
    /// In a cell, without runtime exclusivity checks (one per ACL packet): one thread drives the
    /// analyzer, and a push never reaches back into this layer before it returns (its PDUs go to L2CAP after).
    private let reassembler: SingleOwnerCell<ACLReassembler>

    init(_ ctx: LayerContext, hci: HCILayer, l2cap: L2CAPLayer) {
        self.ctx = ctx
        self.hci = hci
        self.l2cap = l2cap
        reassembler = SingleOwnerCell(
            ACLReassembler(limit: ctx.limits.reassemblyBytes, tracksRecords: ctx.lowerLayers))
    }

    func aclData(_ r: CaptureRecord) {
        // The header is read in place, and the fragment sliced once: a reader over the payload
        // would count a reference of its own.
        guard let word = ByteReader.u16le(in: r.payload, at: 0), let length = ByteReader.u16le(in: r.payload, at: 2)
        else { return hci.malformedHeader(r, "ACL packet", need: 4) }
        let handle = word & 0x0fff
        let boundary = UInt8(word >> 12 & 0x3)
        let direction = r.direction ?? .sent
        let key = ConnectionKey(index: r.controllerIndex, handle: handle)
        // A controller's debug record: before any connection is inferred from it, unless a
        // connection the capture saw open has its handle (one inferred from other traffic does not count).
        let isDebug =
            r.direction == .received && ControllerDebug.channel(word) != nil
            && hci.connections.open[key]?.inferred != false
        var fragment = r.payload.dropFirst(4)
        if fragment.count != Int(length), !(r.isTruncated && fragment.count < Int(length)) {
            var d = Diagnostic(
                HCIDiagnostics.lengthMismatch,
                "ACL data length says \(length) bytes, the record holds \(fragment.count)",
                fields: [("declared", .int(length)), ("present", .int(fragment.count))], packetOffset: 2)
            d.undecodedBytes = max(0, fragment.count - Int(length))
            ctx.say(r, isDebug ? nil : handle, d)
            fragment = fragment.prefix(Int(length))
        }
        if isDebug { return controllerDebug(word, fragment, r) }
        hci.aclPacket(key, boundary: boundary, fragment: fragment, r)
        if direction == .sent, !hci.flow.isEmpty { hci.sentACL(r) }
        if ctx.lowerLayers {
            let info = ACLFragmentInfo(
                handle: handle, boundary: boundary, broadcast: UInt8(word >> 14),
                length: Int(length))
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: handle,
                    isTop: false, body: .acl(info)))
        }
        reassemble(key, direction, boundary: boundary, fragment, r)
    }

    /// A controller's debug record (`hci.debug`): the vendor's bytes, on no connection.
    private func controllerDebug(_ header: UInt16, _ data: ArraySlice<UInt8>, _ r: CaptureRecord) {
        guard let d = ControllerDebug(header: header, data, keep: ctx.valueBytes ? ctx.limits.undecodedBytes : 0)
        else { return }
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: .received, connection: nil, isTop: true,
                body: .hciDebug(d)))
    }

    /// An L2CAP fragment a sniffer heard in an LE data channel PDU: LLID 2 starts a PDU as an HCI
    /// start fragment does, LLID 1 continues it (Core v5.4 Vol 6 Part B §2.4).
    func linkLayerFragment(_ key: ConnectionKey, start: Bool, _ fragment: ArraySlice<UInt8>, _ r: CaptureRecord) {
        reassemble(key, r.direction ?? .sent, boundary: start ? 0b10 : 0b01, fragment, r)
    }

    private func reassemble(
        _ key: ConnectionKey, _ direction: Direction, boundary: UInt8, _ fragment: consuming ArraySlice<UInt8>,
        _ r: CaptureRecord
    ) {
        let handle = key.handle
        var out = reassembler.value.push(
            ACLKey(key, direction), boundary: boundary, fragment: fragment,
            record: r.number, time: r.timestamp, cutByCapture: r.isTruncated)
        for d in out.diagnostics {
            let d = ctx.with(d, undecoded: d.field("bytes") ?? d.field("extra") ?? d.field("have"))
            // The cut that left a PDU's continuation without its start was said already.
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: r.direction, connection: handle,
                    isTop: d.kind != L2CAPDiagnostics.continuationAfterCut, body: .diagnostic(d)))
        }
        if let pdu = out.pdu.take() { l2cap.pdu(consume pdu, key, direction, r, continuations: out.continuations) }
    }

    /// The last time traffic was seen on a connection.
    func lastTraffic(_ key: ConnectionKey) -> Lifecycle.Step? { reassembler.value.lastTraffic(key) }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        for (direction, d, _) in reassembler.value.close(connection) {
            ctx.emit(
                Event(
                    record: place.record, timestamp: place.time, direction: direction,
                    connection: connection.handle, isTop: true,
                    body: .diagnostic(ctx.with(d, undecoded: d.field("have")))))
        }
    }

    /// Whatever is still being reassembled is reported, not dropped.
    func finish(at place: RecordPlace) {
        for (key, d, _) in reassembler.value.finish() {
            ctx.emit(
                Event(
                    record: place.record, timestamp: place.time, direction: key.direction,
                    connection: key.connection.handle, isTop: true,
                    body: .diagnostic(ctx.with(d, undecoded: d.field("have")))))
        }
    }
}
