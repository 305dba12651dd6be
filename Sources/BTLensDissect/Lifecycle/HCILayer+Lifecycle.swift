import BTLensCapture
import BTLensCore

/// Connection lifecycle: the steps HCI reports, and the findings drawn from them.
extension HCILayer {
    /// Short connections to one address within this window, this many times, are a reconnect loop.
    static let loopWindow: Int64 = 60_000_000
    static let loopCount = 3
    static let shortConnection: Int64 = 10_000_000
    /// No buffer freed for this long while all are in use is a stall.
    static let stallTolerance: Int64 = 100_000

    func step(_ r: CaptureRecord) -> Lifecycle.Step { Lifecycle.Step(record: r.number, time: r.timestamp) }

    /// HCI effects that are steps of a connection's life.
    func lifecycle(_ effect: HCIConnectionEffect, _ r: CaptureRecord) {
        let index = r.controllerIndex
        switch effect {
        case .parametersUpdated(let status, let handle, let p) where status.isSuccess:
            connections.update(ConnectionKey(index: index, handle: handle)) {
                $0.parameters = p
                $0.parameterUpdates += 1
            }
        case .phyUpdated(let status, let handle, let tx, let rx) where status.isSuccess:
            connections.update(ConnectionKey(index: index, handle: handle)) { $0.phy = (tx, rx) }
        case .dataLengthChanged(let handle, let tx, let rx):
            connections.update(ConnectionKey(index: index, handle: handle)) { $0.dataLength = (tx, rx) }
        case .encryption(let status, let handle, let enabled):
            let step = step(r)
            connections.update(ConnectionKey(index: index, handle: handle)) {
                if $0.encryption == nil || !status.isSuccess { $0.encryption = (step, status) }
                if status.isSuccess, let enabled { $0.encrypted = enabled }
            }
            if !status.isSuccess {
                ctx.say(
                    r, handle,
                    Diagnostic(
                        LifecycleDiagnostics.encryptionFailed,
                        "\(enabled == nil ? "refreshing" : "starting") encryption on \(Hex.value(handle, width: 4)) failed: \(status.name)\(status.advice.map { "; \($0)" } ?? "")",
                        fields: [("status", .hex(status.rawValue))]))
            }
        case .advertising(let reports):
            let step = step(r)
            for report in reports { advertisers.add(report, step) }
        case .bufferCount(let le, let n):
            // LE buffers when the controller has them; else LE shares the BR/EDR ones.
            if le || flow[index]?.le != true { flow[index] = FlowState(buffers: n, le: le) }
        case .completedPackets(let freed):
            guard var f = flow[index] else { return }
            f.outstanding = max(0, f.outstanding - freed.reduce(0) { $0 + $1.count })
            if let since = f.fullSince, f.outstanding < f.buffers {
                f.fullSince = nil
                let stalled = r.timestamp.elapsed(since: since.time)
                if stalled > Self.stallTolerance {
                    ctx.say(
                        r, nil,
                        Diagnostic(
                            LifecycleDiagnostics.flowStall,
                            "all \(f.buffers) controller ACL buffers were in use from #\(since.record) until this Number Of Completed Packets: \(Timestamp(microseconds: stalled).offset(from: Timestamp(microseconds: 0))) s with no credit to send",
                            fields: [
                                ("since_record", .int(since.record)),
                                ("stalled_us", .int(stalled)), ("buffers", .int(f.buffers)),
                            ]))
                }
            }
            flow[index] = f
        default:
            break
        }
    }

    /// An ACL packet the host sent: one controller buffer used until a Number Of Completed Packets frees it.
    func sentACL(_ r: CaptureRecord) {
        guard var f = flow[r.controllerIndex] else { return }
        f.outstanding += 1
        if f.outstanding >= f.buffers, f.fullSince == nil { f.fullSince = step(r) }
        flow[r.controllerIndex] = f
    }

    /// A failed connection attempt, with its status explained.
    func connectionFailed(_ info: ConnectionInfo, status: HCIErrorCode, _ r: CaptureRecord) {
        let peer = info.address?.description ?? "a device"
        ctx.say(
            r, nil,
            Diagnostic(
                LifecycleDiagnostics.connectionFailed,
                "connecting to \(peer) failed: \(status.name)\(status.advice.map { "; \($0)" } ?? "")",
                fields: [("status", .hex(status.rawValue))]))
    }

    /// Findings when a connection closes: how it ended, what it never did (`hadATT`: an ATT PDU),
    /// whether it is one of a loop.
    func closing(
        _ key: ConnectionKey, reason: HCIErrorCode, lastTraffic: Lifecycle.Step?, hadATT: Bool,
        _ r: CaptureRecord
    ) {
        guard let info = connections[key] else { return }
        let handle = key.handle
        if reason.rawValue == 0x08 {
            let last =
                lastTraffic.map {
                    "the last traffic was #\($0.record), \(r.timestamp.offset(from: $0.time)) s before"
                } ?? "no traffic was captured on it"
            let timeout =
                info.lifecycle.parameters.map {
                    "; the supervision timeout was \($0.timeoutMilliseconds) ms"
                } ?? ""
            ctx.say(
                r, handle,
                Diagnostic(
                    LifecycleDiagnostics.supervisionTimeout,
                    "\(Hex.value(handle, width: 4)) lost: Connection Timeout; \(last)\(timeout)",
                    fields: [("last_record", .int(lastTraffic?.record ?? 0))]))
        }
        if reason.rawValue == 0x3d {
            ctx.say(
                r, handle,
                Diagnostic(
                    LifecycleDiagnostics.micFailure,
                    "\(Hex.value(handle, width: 4)) dropped: MIC Failure; \(reason.advice ?? "")"))
        }
        // An app may talk over a credit-based channel and never use GATT.
        if info.transport == .le, !info.inferred, !hadATT, !info.lifecycle.usedCreditChannel {
            ctx.say(
                r, handle,
                Diagnostic(
                    LifecycleDiagnostics.noDiscovery,
                    "\(Hex.value(handle, width: 4)) closed (\(reason.name)) before any ATT PDU: the app never reached discovery"
                ))
        }
        guard let address = info.address, let opened = info.openedTime,
            r.timestamp.elapsed(since: opened) < Self.shortConnection
        else { return }
        var recent = (shortConnections[address] ?? []).filter { r.timestamp.elapsed(since: $0.time) < Self.loopWindow }
        recent.append(step(r))
        if recent.count == Self.loopCount {
            ctx.say(
                r, handle,
                Diagnostic(
                    LifecycleDiagnostics.reconnectLoop,
                    "\(recent.count) connections to \(address) ended within \(Self.loopWindow / 1_000_000) s, each under \(Self.shortConnection / 1_000_000) s (closed at \(recent.map { "#\($0.record)" }.joined(separator: ", ")))",
                    fields: [("address", .string(address.description))]))
        }
        if shortConnections[address] == nil, shortConnections.count >= Self.loopAddressLimit {
            shortConnections.removeAll()
        }
        shortConnections[address] = Array(recent.suffix(Self.loopCount))
    }

    static let loopAddressLimit = 256
}

/// Controller buffer credits (Core Vol 4, Part E, §4.1.1): the host may have `buffers` ACL packets
/// outstanding; Number Of Completed Packets gives them back.
struct FlowState {
    var buffers: Int
    var le: Bool
    var outstanding = 0
    var fullSince: Lifecycle.Step?
}
