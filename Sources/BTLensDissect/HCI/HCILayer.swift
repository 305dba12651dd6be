import BTLensCapture
import BTLensCore

/// HCI: commands and events decoded, and what they say about connections: the connection table,
/// controller buffer credits, recent short connections, and the devices seen advertising.
///
/// The connection-opening and -closing effects go back to the analyzer, which opens and closes the
/// connection in every layer; the others are steps of a connection's life, kept here.
final class HCILayer {
    let ctx: LayerContext
    var connections: ConnectionTable
    /// Devices seen advertising while the phone scanned.
    var advertisers = AdvertisingTable()
    /// Controller ACL buffer credits, per controller, once a Read Buffer Size completion is seen.
    var flow: [UInt16: FlowState] = [:]
    /// Recent short connections per address (reconnect loops), bounded.
    var shortConnections: [BDAddr: [Lifecycle.Step]] = [:]
    /// The connection of the last ACL packet, known to be open; forgotten at every HCI command or
    /// event (the only records that open or close connections).
    private var lastOpen: ConnectionKey?

    init(_ ctx: LayerContext) {
        self.ctx = ctx
        connections = ConnectionTable(historyLimit: ctx.limits.connectionHistory)
    }

    /// A command, shown; what it does to connections is returned.
    func command(_ r: CaptureRecord) -> HCIConnectionEffect? {
        lastOpen = nil
        guard let decoded = HCIDecoder.command(r.payload, truncated: r.isTruncated) else {
            malformedHeader(r, "HCI command", need: 3)
            return nil
        }
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                body: .hciCommand(decoded.info)))
        for d in decoded.diagnostics { ctx.say(r, nil, d) }
        return decoded.effect
    }

    /// An event, shown; what it does to connections is returned.
    func event(_ r: CaptureRecord) -> HCIConnectionEffect? {
        lastOpen = nil
        guard let decoded = HCIDecoder.event(r.payload, truncated: r.isTruncated) else {
            malformedHeader(r, "HCI event", need: 2)
            return nil
        }
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: r.direction, connection: nil, isTop: true,
                body: .hciEvent(decoded.info)))
        for d in decoded.diagnostics { ctx.say(r, nil, d) }
        return decoded.effect
    }

    func malformedHeader(_ r: CaptureRecord, _ what: String, need: Int) {
        var d = Diagnostic(
            HCIDiagnostics.malformed, "\(what) of \(r.payload.count) bytes: its header needs \(need)",
            fields: [("have", .int(r.payload.count)), ("need", .int(need))], packetOffset: 0)
        d.undecodedBytes = r.payload.count
        ctx.say(r, nil, d)
    }

    /// An SCO packet's header (Core Vol 4 Part E §5.4.3: handle, 1-byte length) against its record:
    /// a length that disagrees is said (the audio bytes stay undecoded either way).
    func scoLength(_ r: CaptureRecord) {
        guard r.payload.count >= 3 else { return malformedHeader(r, "SCO packet", need: 3) }
        let declared = Int(r.payload[r.payload.startIndex + 2])
        let present = r.payload.count - 3
        guard declared != present, !(r.isTruncated && present < declared) else { return }
        ctx.say(
            r, nil,
            Diagnostic(
                HCIDiagnostics.lengthMismatch,
                "SCO packet: parameter length says \(declared) bytes, the record holds \(present)",
                fields: [("declared", .int(declared)), ("present", .int(present))]))
    }

    /// An ACL packet's connection: one with no Connection Complete in the capture is inferred.
    func aclPacket(_ key: ConnectionKey, boundary: UInt8, fragment: ArraySlice<UInt8>, _ r: CaptureRecord) {
        guard key != lastOpen else { return }
        if !connections.isOpen(key) { inferConnection(key, boundary: boundary, fragment: fragment, r) }
        lastOpen = key
    }

    private func inferConnection(
        _ key: ConnectionKey, boundary: UInt8, fragment: ArraySlice<UInt8>,
        _ r: CaptureRecord
    ) {
        var transport = Transport.unknown
        if ACLPacketBoundary(flag: boundary) != .continuingFragment, fragment.count >= 4 {
            let cid = UInt16(fragment[fragment.startIndex + 2]) | UInt16(fragment[fragment.startIndex + 3]) << 8
            transport =
                [0x0004, 0x0005, 0x0006].contains(cid)
                ? .le
                : (cid == 0x0001 || cid >= 0x0040 ? .bredr : .unknown)
        }
        let info = connections.infer(key, record: r.number, time: r.timestamp, transport: transport)
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: nil, connection: key.handle, isTop: true,
                body: .connection(ConnectionChange(change: .inferred, info: info, code: nil))))
        ctx.say(
            r, key.handle,
            Diagnostic(
                HCIDiagnostics.connectionInferred,
                "traffic on handle \(Hex.value(key.handle, width: 4)) with no Connection Complete in the capture: the capture began mid-connection",
                fields: [("handle", .hex(key.handle))]))
    }

    /// Whose GATT database a connection sees: its peer's, by address when the capture has it.
    func peer(_ key: ConnectionKey) -> PeerID {
        connections[key]?.address.map(PeerID.address) ?? .connection(key)
    }

    /// The device at the other end of a connection, as far as the capture says: its address and
    /// advertised name pick the definitions bound to some devices only.
    func device(_ connection: ConnectionKey) -> DissectorTable.Device {
        let address = connections[connection]?.address
        return DissectorTable.Device(address: address, name: address.flatMap { advertisers.devices[$0]?.name })
    }
}
