import BTLensCapture
import BTLensCore

/// Connections as a sniffer sees them: opened by a CONNECT_IND, or assumed from data on an access
/// address never announced; each given a handle of its own for btlens' outputs.
extension LinkLayerLayer {
    /// The connection a CONNECT_IND creates; the phone's side (the initiator) is the central.
    func open(_ c: LLConnectParameters, _ r: CaptureRecord) {
        guard connections[c.accessAddress] == nil, let key = newKey(c.accessAddress, r, announced: true) else { return }
        noLossBefore = nil
        terminated.removeAll { $0.aa == c.accessAddress }
        connections[c.accessAddress]?.devices = (
            LLDevice(type: c.centralType, address: c.central), LLDevice(type: c.peripheralType, address: c.peripheral)
        )
        let info = ConnectionInfo(
            key: key, address: c.peripheral, addressType: c.peripheralType, transport: .le, role: .central,
            openedRecord: r.number, openedTime: r.timestamp, closedRecord: nil, closedTime: nil,
            disconnectReason: nil, inferred: false)
        announce(info, .opened, r)
        connections[c.accessAddress]?.supervision.start(units: c.timeout)
        connections[c.accessAddress]?.supervision.heard(r, counter: nil)
    }

    /// The connection an access address belongs to, assumed when none was announced; nil past the bound.
    func connection(_ aa: UInt32, _ r: CaptureRecord) -> LLConnection? {
        if let c = connections[aa] { return c }
        guard let key = newKey(aa, r) else { return nil }
        let info = ConnectionInfo(
            key: key, address: nil, addressType: nil, transport: .le, role: .central, openedRecord: r.number,
            openedTime: r.timestamp, closedRecord: nil, closedTime: nil, disconnectReason: nil, inferred: true)
        announce(info, .inferred, r)
        ctx.say(
            r, key.handle,
            Diagnostic(
                LLDiagnostics.connectionInferred,
                "data PDU on access address \(Hex.value(aa, width: 8)), expected its CONNECT_IND first: connection assumed",
                fields: [("access_address", .hex(Int64(aa), digits: 8))]))
        return connections[aa]
    }

    /// A handle for a new connection on `aa`, and its state; nil, said, past the bound. One a
    /// CONNECT_IND `announced` takes the place of the assumed connection heard least recently.
    private func newKey(_ aa: UInt32, _ r: CaptureRecord, announced: Bool = false) -> ConnectionKey? {
        if connections.count >= Self.connectionLimit, announced { forgetAssumed(r) }
        guard connections.count < Self.connectionLimit else {
            ctx.say(
                r, nil,
                Diagnostic(
                    LLDiagnostics.connectionLimit,
                    "access address \(Hex.value(aa, width: 8)): at most \(Self.connectionLimit) connections followed at once, found one more",
                    fields: [("access_address", .hex(Int64(aa), digits: 8))]))
            return nil
        }
        var handle = nextHandle
        while hci.connections.isOpen(ConnectionKey(index: r.controllerIndex, handle: handle)) {
            handle = handle % 0x0eff + 1
        }
        nextHandle = handle % 0x0eff + 1
        let key = ConnectionKey(index: r.controllerIndex, handle: handle)
        connections[aa] = LLConnection(key: key)
        return key
    }

    /// Stops following the assumed connection heard least recently (noise on a data channel often
    /// looks like one), so that a real connection can be followed.
    private func forgetAssumed(_ r: CaptureRecord) {
        let assumed = connections.filter { $0.value.devices == nil }
        guard
            let (aa, c) = assumed.min(by: {
                ($0.value.supervision.lastTime?.microseconds ?? 0, $0.key)
                    < ($1.value.supervision.lastTime?.microseconds ?? 0, $1.key)
            })
        else { return }
        connections[aa] = nil
        ctx.say(
            r, c.key.handle,
            Diagnostic(
                LLDiagnostics.connectionLimit,
                "at most \(Self.connectionLimit) connections followed at once: the one assumed on access address \(Hex.value(aa, width: 8)), last heard at #\(c.supervision.lastRecord), is no longer followed, for this CONNECT_IND's",
                fields: [("access_address", .hex(Int64(aa), digits: 8))]))
    }

    private func announce(_ info: ConnectionInfo, _ change: ConnectionChange.Change, _ r: CaptureRecord) {
        _ = hci.connections.opened(info)
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: nil, connection: info.key.handle, isTop: true,
                body: .connection(ConnectionChange(change: change, info: hci.connections[info.key] ?? info, code: nil)))
        )
    }
}
