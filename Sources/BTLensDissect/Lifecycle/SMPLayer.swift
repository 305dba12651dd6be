import BTLensCapture
import BTLensCore

/// SMP on its fixed channels: shown undecoded, and read for the steps of pairing. It keeps no state
/// of its own (pairing steps go into the connection's lifecycle), so it is not in the analyzer's
/// list of layers that close with a connection.
final class SMPLayer {
    private let ctx: LayerContext
    private let hci: HCILayer

    init(_ ctx: LayerContext, hci: HCILayer) {
        self.ctx = ctx
        self.hci = hci
    }

    /// An SMP PDU: pairing outcomes are steps; a failure is a finding.
    func smp(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let code = pdu.payload.first
        ctx.undecoded(r, key.handle, L2CAPChannel.name(pdu.cid), pdu.payload)
        let step = Lifecycle.Step(record: r.number, time: r.timestamp)
        if code == SMPCode.pairingRequest || code == SMPCode.securityRequest {
            hci.connections.update(key) { if $0.pairingStarted == nil { $0.pairingStarted = step } }
        }
        guard code == SMPCode.pairingFailed, let raw = pdu.payload.dropFirst().first else { return }
        let reason = SMPFailureReason(rawValue: raw)
        hci.connections.update(key) { $0.pairingFailure = (step, reason) }
        let who = direction == .sent ? "the phone" : "the device"
        ctx.say(
            r, key.handle,
            Diagnostic(
                LifecycleDiagnostics.pairingFailed, "\(who) failed pairing: \(reason.name)",
                fields: [("reason", .hex(raw))]), direction)
    }
}
