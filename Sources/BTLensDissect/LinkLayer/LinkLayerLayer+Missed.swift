import BTLensCapture
import BTLensCore

/// PDUs a sniffer did not hear, as a connection's sequence numbers and event counter show them
/// (Core v5.4 Vol 6 Part B §4.5.9, §4.5.1): said, never taken for retransmissions.
extension LinkLayerLayer {
    /// Whether the PDU `sender` sent is a retransmission; says what was missed before it. Sides
    /// `guessed` in turns (no sniffer header) tell retransmissions only.
    func sequenced(
        _ c: LLConnection, _ sender: AirPacket.Sender, guessed: Bool, _ header: LLDataHeader,
        _ air: AirPacket, _ r: CaptureRecord
    ) -> Bool {
        c.lastSender = sender
        // Its first PDU gives it a deadline, which may come before the others'.
        if c.supervision.lastTime == nil { noLossBefore = nil }
        c.supervision.heard(r, counter: air.eventCounter)
        let previous = c.sequence.lastRecord
        let (resent, missed) = c.sequence.next(
            sender, guessed: guessed, sn: header.sn, nesn: header.nesn, content: LLSequence.digest(header),
            counter: air.eventCounter, record: r.number)
        if let missed, let previous { say(missed, sender, between: previous, c.key.handle, r) }
        return resent
    }

    private func say(
        _ missed: LLSequence.Missed, _ sender: AirPacket.Sender, between previous: Int, _ handle: UInt16,
        _ r: CaptureRecord
    ) {
        let side = sender == .central ? "central" : "peripheral"
        let peer = sender == .central ? "peripheral" : "central"
        let between = "between #\(previous) and #\(r.number)"
        let fields: [(String, FieldValue)]
        let message: String
        switch missed {
        case .unacknowledged(let sn):
            fields = [("count", .int(1)), ("after_record", .int(previous))]
            message =
                "expected the \(side)'s last SN repeated until a \(peer) PDU acknowledged it, found SN \(sn) with none heard: a \(peer) PDU missed \(between)"
        case .unheard(let nesn):
            fields = [("count", .int(1)), ("after_record", .int(previous))]
            message =
                "expected the \(side)'s NESN unchanged with no new \(peer) PDU heard, found NESN \(nesn) acknowledging one: a \(peer) PDU missed \(between)"
        case .events(let count, let expected, let found):
            fields = [("count", .int(count)), ("after_record", .int(previous))]
            message =
                "expected connection event \(expected), found \(found): \(count) connection event\(count == 1 ? "" : "s") missed \(between)"
        case .differs(let sn):
            fields = [("count", .int(2)), ("after_record", .int(previous))]
            message =
                "expected the \(side)'s unacknowledged SN \(sn) PDU again (a retransmission), found other bytes: a new PDU, at least 2 PDUs missed \(between)"
        case .counterBack(let expected, let found):
            let d = Diagnostic(
                LLStateDiagnostics.counterBack,
                "expected connection event \(expected) or later after #\(previous), found \(found): counting again from it",
                fields: [("after_record", .int(previous))])
            return ctx.say(r, handle, d, direction(sender))
        }
        ctx.say(r, handle, Diagnostic(LLStateDiagnostics.packetsMissed, message, fields: fields), direction(sender))
    }

    private func direction(_ sender: AirPacket.Sender) -> Direction { sender == .central ? .sent : .received }
}
