import BTLensCapture
import BTLensCore
import BTLensCrypto

/// Keys a sniffer capture gives away (Core v5.4 Vol 3 Part H §2.3): LE legacy pairing's TK found
/// from its Pairing Confirm (Just Works' 0, or a passkey searched as crackle does) and the STK made
/// from it; Secure Connections' LTK when one side used the debug key; and the LTKs the devices
/// distribute once the link is encrypted. The SMP layer hands each SMP PDU of a sniffer capture here.
extension LinkLayerLayer {
    func smp(_ payload: ArraySlice<UInt8>, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        guard let c = connections.values.first(where: { $0.key == key }),
            let code = payload.first
        else { return }
        let side = direction == .sent ? 0 : 1
        let p = Array(payload.dropFirst())
        switch (code, p.count) {
        case (0x01, 6...): c.pairing.restart(Array(payload.prefix(7)))
        case (0x02, 6...): c.pairing.response = Array(payload.prefix(7))
        case (0x03, 16...): c.pairing.confirm[side] = Array(p.prefix(16))
        case (0x0c, 64...): c.pairing.publicKey[side] = Array(p.prefix(64))
        case (0x04, 16...):
            c.pairing.random[side] = Array(p.prefix(16))
            // Legacy pairing's key follows from the responder's random; Secure Connections' from the
            // last of its rounds' (passkey entry has 20), at the initiator's DHKey Check.
            if side == 1, c.pairing.publicKey.contains(where: { $0 == nil }) { derive(c, r) }
        case (0x0d, 16...) where side == 0: derive(c, r)
        case (0x06, 16...): c.pairing.distributed[side] = Key128(littleEndian: p.prefix(16))
        case (0x07, 10...):
            guard let ltk = c.pairing.distributed[side] else { break }
            let device = side == 0 ? c.devices?.central.address : c.devices?.peripheral.address
            let ediv = UInt16(p[0]) | UInt16(p[1]) << 8
            learn(
                LLLearntKey(
                    key: ltk, ediv: ediv, rand: Array(p[2..<10]), device: device, source: "the LTK of #\(r.number)"))
            say(
                r, c, LLDiagnostics.keyDerived,
                "LTK distributed, for the encryption with EDIV \(Hex.value(ediv, width: 4)) and this Rand")
        default: break
        }
    }

    /// At the responder's Pairing Random: the key this pairing makes, when the capture gives it away.
    private func derive(_ c: LLConnection, _ r: CaptureRecord) {
        guard let d = c.devices else {
            return say(
                r, c, LLDiagnostics.keyNotDerived,
                "expected the connection's CONNECT_IND, whose addresses pairing's keys depend on, found none: no key derived"
            )
        }
        let pk = c.pairing.publicKey
        if let pka = pk[0], let pkb = pk[1], let na = c.pairing.random[0], let nb = c.pairing.random[1] {
            guard
                let ltk = SecureConnectionsDebugKey.ltk(
                    initiatorKey: pka, responderKey: pkb, na: na, nb: nb, initiatorType: d.central.type,
                    initiator: d.central.address.wire, responderType: d.peripheral.type,
                    responder: d.peripheral.address.wire)
            else {
                return say(
                    r, c, LLDiagnostics.keyNotDerived,
                    "Secure Connections pairing: expected a side to use the debug key, found none; its LTK is not in the capture (give it with --ltk)"
                )
            }
            c.pairing.derived = (ltk, "the LTK of Secure Connections pairing with the debug key (#\(r.number))")
            learn(
                LLLearntKey(
                    key: ltk, ediv: 0, rand: [], device: d.peripheral.address, source: "the LTK of #\(r.number)"))
            return say(r, c, LLDiagnostics.keyDerived, "Secure Connections with the debug key: LTK derived")
        }
        legacy(c, d, r)
    }

    /// LE legacy pairing: the TK whose c1 gives the initiator's Pairing Confirm, then the STK.
    private func legacy(_ c: LLConnection, _ d: (central: LLDevice, peripheral: LLDevice), _ r: CaptureRecord) {
        guard let q = c.pairing.request, let s = c.pairing.response, let mconfirm = c.pairing.confirm[0],
            let mrand = c.pairing.random[0], let srand = c.pairing.random[1],
            let pairing = LegacyPairing(
                pairingRequest: q, pairingResponse: s, initiatorType: d.central.type,
                initiator: d.central.address.wire, responderType: d.peripheral.type,
                responder: d.peripheral.address.wire)
        else {
            return say(
                r, c, LLDiagnostics.keyNotDerived,
                "expected Pairing Request, Response, the initiator's Confirm and both Randoms, found only some: no key derived"
            )
        }
        guard let tk = pairing.findTK(rand: mrand, confirm: mconfirm),
            let stk = LegacyPairing.stk(tk: tk, srand: srand, mrand: mrand)
        else {
            return say(
                r, c, LLDiagnostics.keyNotDerived,
                "expected a TK from 0 to 999999 whose c1 gives the Pairing Confirm, found none (out of band data?): what follows decrypts only with a key given"
            )
        }
        // Keys and the passkey are never printed: a report shared without the capture keeps them.
        let what = tk == 0 ? "Just Works (TK 0)" : "passkey (found by search)"
        c.pairing.derived = (stk, "the STK of \(what) pairing (#\(r.number))")
        say(
            r, c, LLDiagnostics.keyDerived, "\(what) pairing: TK found from the Pairing Confirm, STK derived"
        )
    }

    private func learn(_ k: LLLearntKey) {
        learnt = Array(learnt.suffix(Self.learntKept - 1)) + [k]
    }
}
