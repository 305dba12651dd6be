import BTLensCapture
import BTLensCore

/// SMP on its fixed channels: each PDU named with its parameters (a PDU that does not parse is
/// shown undecoded), and read for the steps of pairing. It keeps no state
/// of its own (pairing steps go into the connection's lifecycle), so it is not in the analyzer's
/// list of layers that close with a connection.
final class SMPLayer {
    private let ctx: LayerContext
    private let hci: HCILayer
    /// A sniffer capture's link layer, which derives keys from pairing to decrypt what follows.
    private unowned let pairing: LinkLayerLayer

    init(_ ctx: LayerContext, hci: HCILayer, pairing: LinkLayerLayer) {
        self.ctx = ctx
        self.hci = hci
        self.pairing = pairing
    }

    /// An SMP PDU: pairing outcomes are steps; a failure is a finding.
    func smp(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let code = pdu.payload.first
        if let info = SMPInfo(pdu.payload) {
            ctx.emit(
                Event(
                    record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                    isTop: true, body: .smp(info)))
        } else {
            ctx.undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
        }
        if r.kind == .linkLayer { pairing.smp(pdu.payload, key, direction, r) }
        let step = Lifecycle.Step(record: r.number, time: r.timestamp)
        if code == SMPCode.pairingRequest || code == SMPCode.securityRequest {
            hci.connections.update(key) { if $0.pairingStarted == nil { $0.pairingStarted = step } }
        }
        let p = Array(pdu.payload.dropFirst().prefix(3))
        if p.count == 3, code == SMPCode.pairingRequest {
            hci.connections.update(key) { $0.pairingRequest = (p[0], p[1] == 1, p[2]) }
        }
        if p.count == 3, code == SMPCode.pairingResponse {
            hci.connections.update(key) {
                guard let q = $0.pairingRequest else { return }
                $0.pairingMethod = SMPInfo.method(
                    initiator: (q.io, q.oob, q.auth), responder: (p[0], p[1] == 1, p[2]))
            }
        }
        guard code == SMPCode.pairingFailed, let raw = pdu.payload.dropFirst().first else { return }
        let reason = SMPFailureReason(rawValue: raw)
        hci.connections.update(key) { $0.pairingFailure = (step, reason) }
        let who = direction.sender
        ctx.say(
            r, key.handle,
            Diagnostic(
                LifecycleDiagnostics.pairingFailed, "\(who) failed pairing: \(reason.name)",
                fields: [("reason", .hex(raw))]), direction)
    }
}
