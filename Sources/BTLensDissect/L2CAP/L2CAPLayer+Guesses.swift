import BTLensCapture
import BTLensCore

/// A dynamic channel with no captured setup whose first PDU fit RFCOMM.
enum L2CAPGuess {
    /// That first PDU, not yet decoded: the next PDU on the channel confirms the guess or withdraws it.
    case held(CaptureRecord)
    case rfcomm
    case withdrawn
}

/// A guess about what a dynamic channel carries is withdrawn at the first PDU that contradicts it;
/// the channel's PDUs are then shown from its first as undecoded data. What would make a guess keep
/// more than `--limit guess-bytes` withdraws it.
extension L2CAPLayer {
    /// A dynamic channel with no captured setup: the PSM `--decode-as` gives, or RFCOMM while the
    /// guess that it carries RFCOMM stands. nil when the PDU was held or shown undecoded here.
    func unsignalledPSM(
        _ pdu: borrowing L2CAPPDU, _ key: ConnectionKey, _ direction: Direction,
        _ r: CaptureRecord
    ) -> UInt16? {
        for case .cid(let cid, let psm) in ctx.decodeAs where cid == pdu.cid { return psm }
        for case .avdtpMedia(let cid) in ctx.decodeAs where cid == pdu.cid { return PSM.avdtp }
        let channel = L2CAPChannelMap.Key(connection: key, direction: direction, cid: pdu.cid)
        let name = L2CAPChannel.name(pdu.cid)
        switch guessed[channel] {
        case .rfcomm?:
            return PSM.rfcomm
        case .withdrawn?:
            ctx.undecoded(r, key.handle, name, pdu.payload)
            return nil
        case .held(let first)?:
            budget.heldBytes -= first.payload.count
            // A PDU the capture cut short proves nothing either way: the guess stands.
            if !pdu.truncated, let misfit = RFCOMMFrame.misfit(pdu.payload) {
                guessed[channel] = .withdrawn
                ctx.say(
                    r, key.handle,
                    Diagnostic(
                        L2CAPDiagnostics.guessWithdrawn,
                        "channel \(Hex.value(pdu.cid, width: 4)) was taken for RFCOMM from its first frame (#\(first.number)), but this PDU of \(pdu.payload.count) bytes is no RFCOMM frame: \(misfit). Its PDUs from the first are shown undecoded (--decode-as \(Hex.value(pdu.cid, width: 4))=rfcomm overrides)",
                        fields: [
                            ("cid", .hex(pdu.cid)),
                            ("first_record", .int(first.number)),
                        ]),
                    direction)
                ctx.undecoded(first, key.handle, name, first.payload)
                ctx.undecoded(r, key.handle, name, pdu.payload)
                return nil
            }
            guessed[channel] = .rfcomm
            decodeHeld(first, channel)
            return PSM.rfcomm
        case nil:
            guard !pdu.truncated, RFCOMMFrame.misfit(pdu.payload) == nil,
                budget.heldBytes + pdu.payload.count <= ctx.limits.guessBytes
            else {
                ctx.undecoded(r, key.handle, name, pdu.payload)
                return nil
            }
            ctx.say(
                r, key.handle,
                Diagnostic(
                    L2CAPDiagnostics.guessed,
                    "no captured signalling says what channel \(Hex.value(pdu.cid, width: 4)) carries; its frames parse as RFCOMM with a valid FCS, so it is decoded as RFCOMM (a guess, withdrawn if a later frame does not fit; --decode-as overrides)",
                    fields: [("cid", .hex(pdu.cid)), ("psm", .hex(PSM.rfcomm))]), direction)
            // The frame waits for the next: decoded if that one fits too, shown undecoded if not.
            var first = r
            first.payload = ArraySlice(Array(pdu.payload))
            first.originalLength = first.payload.count
            budget.heldBytes += first.payload.count
            guessed[channel] = .held(first)
            return nil
        }
    }

    /// A connection (nil: every one) ends with RFCOMM guesses unconfirmed: nothing contradicted
    /// them, so they stand.
    func settleGuesses(_ connection: ConnectionKey?) {
        let held = guessed.compactMap { channel, guess -> (L2CAPChannelMap.Key, CaptureRecord)? in
            guard case .held(let first) = guess, connection == nil || channel.connection == connection
            else { return nil }
            return (channel, first)
        }
        // One record holds at most one PDU: its number orders them.
        for (channel, first) in held.sorted(by: { $0.1.number < $1.1.number }) {
            budget.heldBytes -= first.payload.count
            guessed[channel] = .rfcomm
            decodeHeld(first, channel)
        }
    }

    /// A held first PDU whose guess stands: decoded as RFCOMM, at its own record.
    private func decodeHeld(_ first: CaptureRecord, _ channel: L2CAPChannelMap.Key) {
        let pdu = L2CAPPDU(
            cid: channel.cid, declaredLength: first.payload.count, payload: first.payload, firstRecord: first.number,
            truncated: false)
        dynamic(pdu, channel, psm: PSM.rfcomm, first)
    }
}
