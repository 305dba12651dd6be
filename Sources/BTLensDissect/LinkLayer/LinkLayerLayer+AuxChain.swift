import BTLensCapture
import BTLensCore

/// Advertising chains (Core v5.4 Vol 6 Part B §2.3.4): an AUX_ADV_IND or AUX_SCAN_RSP (the type 7
/// PDU that answers an AUX_SCAN_REQ on its channel) whose AuxPtr announces more, then the AUX_CHAIN_INDs heard where and when each AuxPtr points, shown as parts
/// of the chain; the last shows the AdvData of the whole chain joined, so that a name split across
/// parts is read whole.
extension LinkLayerLayer {
    typealias Chain = LLAuxChains.Chain

    /// `message`, the decoding of a secondary channel's `pdu`, as a part of a chain when it is one.
    func chained(_ pdu: ArraySlice<UInt8>, _ message: ProfileMessage, _ r: CaptureRecord) -> ProfileMessage {
        if pdu.first.map({ $0 & 0x0f }) == 3 {
            chains.scanRequest = (r.air?.channel, r.timestamp, r.air?.phy == 2)
            return message
        }
        guard let ext = LLExtendedPDU(pdu) else { return message }
        var m = message
        var chain: Chain
        if var c = chains.take(channel: r.air?.channel, at: r.timestamp, adi: ext.adi) {
            // Its AdvData continues the chain's, not read on its own.
            m.name = "AUX_CHAIN_IND"
            m.fields = Array(m.fields.dropLast(LLADStructures.fields(ext.data).count))
            let by = c.adi != nil && ext.adi != nil ? "ADI, channel, time" : "channel, time (no ADI)"
            m.fields += [("chain_record", .int(c.first)), ("chain_by", .string(by))]
            // Past the bounds the chain is still followed, its AdvData no longer joined.
            if !c.full, c.parts >= LLAuxChains.partLimit || c.data.count + ext.data.count > LLAuxChains.byteLimit {
                c.full = true
                tooLong(c, r)
            }
            if !c.full { c.data += ext.data }
            c.parts += 1
            c.last = r.number
            chain = c
        } else {
            if chains.answersScanRequest(channel: r.air?.channel, at: r.timestamp) { m.name = "AUX_SCAN_RSP" }
            guard ext.aux != nil else { return m }
            chain = Chain(
                first: r.number, last: r.number, adi: ext.adi, data: Array(ext.data), channel: 0,
                earliest: r.timestamp, latest: r.timestamp)
        }
        // An AUX Offset of 0 points at no packet: the chain ends there.
        if let aux = ext.aux, aux.offsetMicroseconds > 0 {
            if !chains.await(chain, aux, after: r.timestamp) { tooMany(r) }
        } else if chain.parts > 1 {
            m.fields += [("chain_parts", .int(chain.parts)), ("chain_bytes", .int(chain.data.count))]
            m.fields += LLADStructures.fields(chain.data[...])
        }
        return m
    }

    /// Says the chains whose next part is overdue at `r`, and frees them.
    func chainsOverdue(_ r: CaptureRecord) {
        for c in chains.overdue(at: r.timestamp) {
            let parts = c.parts == 1 ? "1 part" : "\(c.parts) parts"
            ctx.say(
                r, nil,
                Diagnostic(
                    LLStateDiagnostics.chainMissing,
                    "expected AUX_CHAIN_IND on channel \(c.channel) where #\(c.last)'s AuxPtr points, found none before #\(r.number): the chain begun at #\(c.first) ends incomplete after \(parts), \(c.data.count) bytes",
                    fields: [
                        ("first_record", .int(c.first)), ("last_record", .int(c.last)), ("parts", .int(c.parts)),
                        ("bytes", .int(c.data.count)),
                    ]))
        }
    }

    private func tooLong(_ c: Chain, _ r: CaptureRecord) {
        ctx.say(
            r, nil,
            Diagnostic(
                LLStateDiagnostics.chainLimit,
                "expected at most \(LLAuxChains.partLimit) parts and \(LLAuxChains.byteLimit) bytes of AdvData in a chain, found more in the chain begun at #\(c.first): its parts are followed, their AdvData no longer joined",
                fields: [("first_record", .int(c.first))]))
    }

    private func tooMany(_ r: CaptureRecord) {
        ctx.say(
            r, nil,
            Diagnostic(
                LLStateDiagnostics.chainLimit,
                "expected at most \(LLAuxChains.pendingLimit) advertising chains awaited at once, found one more: not followed",
                fields: [("first_record", .int(r.number))]))
    }
}
