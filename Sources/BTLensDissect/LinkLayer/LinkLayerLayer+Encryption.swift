import BTLensCapture
import BTLensCore
import BTLensCrypto

/// Encryption as a sniffer follows it (Core v5.4 Vol 6 Part B §5.1.3): the session set up by
/// LL_ENC_REQ and LL_ENC_RSP, started by LL_START_ENC_REQ and paused by LL_PAUSE_ENC_RSP; each
/// encrypted PDU decrypted with the first key whose MIC checks, or shown encrypted.
extension LinkLayerLayer {
    /// The encryption procedure's PDUs, after the control PDU is shown.
    func encryptionControl(_ opcode: UInt8, _ payload: ArraySlice<UInt8>, _ c: LLConnection, _ r: CaptureRecord) {
        let p = Array(payload.dropFirst())
        switch opcode {
        case LLControlPDU.encryptionRequest where p.count >= 22:
            let ediv = UInt16(p[8]) | UInt16(p[9]) << 8
            c.encryption.request = (Array(p[0..<8]), ediv, Array(p[10..<18]), Array(p[18..<22]), r.number)
            c.encryption.response = nil
        case LLControlPDU.encryptionResponse where p.count >= 12:
            c.encryption.response = (Array(p[0..<8]), Array(p[8..<12]))
        case LLControlPDU.startEncryptionRequest:
            c.encryption.start(candidateKeys(c))
            encryptionChanged(c.key, HCIErrorCode(rawValue: 0), true, r)
        case LLControlPDU.pauseEncryptionResponse where c.encryption.active:
            // The peripheral's LL_PAUSE_ENC_RSP is its last encrypted PDU; the central's, after it, is not.
            c.encryption.active = false
            encryptionChanged(c.key, HCIErrorCode(rawValue: 0), false, r)
        // The peripheral refuses LL_ENC_REQ (no key for the central: a lost bond), Vol 6 Part B §5.1.3.1.
        case LLControlPDU.reject where c.encryption.request != nil && !c.encryption.active && p.count >= 1:
            encryptionChanged(c.key, HCIErrorCode(rawValue: p[0]), true, r)
        case LLControlPDU.rejectExtended where p.count >= 2 && p[0] == LLControlPDU.encryptionRequest:
            encryptionChanged(c.key, HCIErrorCode(rawValue: p[1]), true, r)
        default: break
        }
    }

    /// The keys to try, most likely first: what this connection's pairing made (for a session with
    /// EDIV and Rand zero), keys distributed earlier with this EDIV and Rand or for these devices,
    /// then the user's, each also read least significant octet first.
    private func candidateKeys(_ c: LLConnection) -> [(key: Key128, source: String, given: Bool)] {
        guard let q = c.encryption.request else { return [] }
        let zero = q.ediv == 0 && q.rand.allSatisfy { $0 == 0 }
        let devices = c.devices.map { [$0.central.address, $0.peripheral.address] } ?? []
        var keys: [(key: Key128, source: String, given: Bool)] = []
        if zero, let d = c.pairing.derived { keys.append((d.key, d.source, false)) }
        for k in learnt.reversed()
        where zero
            ? k.ediv == 0 && k.device.map(devices.contains) ?? false
            : k.ediv == q.ediv && k.rand == q.rand
        {
            keys.append((k.key, k.source, false))
        }
        // A connection whose CONNECT_IND is not in the capture may be any device's.
        let given = self.keys.filter { k in k.address.map { devices.isEmpty || devices.contains($0) } ?? true }
        c.encryption.givenKeysSkipped = nil
        if c.encryption.givenKeysFailed, !given.isEmpty {
            c.encryption.givenKeysSkipped = "none of the keys given decrypted an earlier session of this connection"
            return keys
        }
        guard keyTrialsLeft >= given.count * 2 else {
            if !given.isEmpty { c.encryption.givenKeysSkipped = "the capture's 65,536 trials of keys given are spent" }
            return keys
        }
        keyTrialsLeft -= given.count * 2
        for k in given {
            keys.append((k.ltk, k.source, true))
            if let reversed = Key128(littleEndian: k.ltk.littleEndian.reversed()) {
                keys.append((reversed, k.source + LinkLayerKeys.reversed, true))
            }
        }
        return keys
    }

    /// The central's LL_PAUSE_ENC_RSP, sent in plaintext after the peripheral's (Vol 6 Part B
    /// §5.1.3.2): in a session no key decrypts, the only PDU too short to carry a MIC.
    func isPlainPauseResponse(_ header: LLDataHeader, _ c: LLConnection) -> Bool {
        c.encryption.cipher == nil && header.llid == 3
            && header.payload.elementsEqual([LLControlPDU.pauseEncryptionResponse])
    }

    /// The plaintext of an encrypted PDU; nil, with the PDU shown encrypted and said, when no key
    /// decrypts it.
    func decrypt(
        _ header: LLDataHeader, _ c: LLConnection, _ sender: AirPacket.Sender, _ air: AirPacket,
        _ r: CaptureRecord
    ) -> [UInt8]? {
        if air.decrypted { return bySniffer(header, c, air.mic, r) }
        let side = sender == .central ? 0 : 1
        let expected = c.encryption.counters[side]
        if c.encryption.cipher == nil, !c.encryption.candidates.isEmpty {
            if let first = c.encryption.firstDecrypt(header.first, header.payload, side: side) {
                say(r, c, LLDiagnostics.decrypted, decryptedMessage(c, first.source))
                skipped(first.counter, expected, c, r)
                return first.plain
            }
            let tried = c.encryption.candidates.filter { !$0.source.hasSuffix(LinkLayerKeys.reversed) }.count
            c.encryption.givenKeysFailed = c.encryption.candidates.contains(where: \.given)
            c.encryption.candidates = []
            c.encryption.said = true
            undecrypted(header, c, r)
            say(
                r, c, LLDiagnostics.keyWrong,
                "expected a key whose MIC checks on the session's first encrypted PDU, found none of \(Plural.of(tried, "key")) given or derived (each given also read least significant octet first): the session is shown encrypted"
            )
            return nil
        }
        guard c.encryption.cipher != nil else {
            undecrypted(header, c, r)
            if !c.encryption.said {
                c.encryption.said = true
                say(r, c, LLDiagnostics.encrypted, noKeyMessage(c))
            }
            return nil
        }
        let tried = c.encryption.window(side)
        guard let (plain, counter, failed) = c.encryption.decrypt(header.first, header.payload, side: side) else {
            return micFailed(
                header, c, r,
                "expected a MIC that checks with the session key at packet counter \(tried.lowerBound) to \(tried.upperBound), found none"
            )
        }
        // Counters skipped past the PDUs heard that failed: those the sniffer did not hear.
        skipped(counter, expected + failed, c, r)
        return plain
    }

    /// A PDU the sniffer decrypted itself: its plaintext with the MIC after it when the MIC checked
    /// (or was not checked); not decoded when the sniffer says it failed.
    private func bySniffer(_ header: LLDataHeader, _ c: LLConnection, _ mic: AirPacket.Check, _ r: CaptureRecord)
        -> [UInt8]?
    {
        guard mic != .invalid else {
            return micFailed(
                header, c, r, "expected the MIC the sniffer checked to be valid, found its flag saying it failed")
        }
        if !c.encryption.bySniffer {
            c.encryption.bySniffer = true
            say(r, c, LLDiagnostics.decrypted, "decrypted by the sniffer, as its header says")
        }
        return Array(header.payload.dropLast(LLCipher.micSize))
    }

    /// Why a session is shown encrypted: its set-up not in the capture, no key given, or none for it.
    private func noKeyMessage(_ c: LLConnection) -> String {
        guard c.encryption.active, c.encryption.sessionRecord != nil, c.encryption.usedResponse else {
            return
                "data PDUs encrypted, as the sniffer's header says, in a session whose LL_ENC_REQ and LL_ENC_RSP the capture does not hold: shown as encrypted, never decoded"
        }
        if let why = c.encryption.givenKeysSkipped {
            return
                "data PDUs encrypted since LL_START_ENC_REQ, expected a key to decrypt them, found no new one: \(why): shown as encrypted"
        }
        guard !keys.isEmpty else {
            return
                "data PDUs encrypted since LL_START_ENC_REQ, expected a key to decrypt them (--ltk, --keys): shown as encrypted"
        }
        let devices = c.devices.map { "\($0.central.address), \($0.peripheral.address)" } ?? ""
        return
            "data PDUs encrypted since LL_START_ENC_REQ, expected a key for this connection's devices (\(devices)), found only \(Plural.of(keys.count, "key")) for others: shown as encrypted"
    }

    private func decryptedMessage(_ c: LLConnection, _ source: String) -> String {
        let at = c.encryption.sessionRecord.map { " of LL_ENC_REQ #\($0)" } ?? ""
        return "the encryption\(at) decrypted with \(source): every PDU's MIC is checked"
    }

    /// Says the PDUs a counter past the expected one shows the sniffer did not hear.
    private func skipped(_ counter: UInt64, _ expected: UInt64, _ c: LLConnection, _ r: CaptureRecord) {
        guard counter > expected else { return }
        let n = Int(counter - expected)
        say(
            r, c, LLDiagnostics.counterSkipped,
            "expected packet counter \(expected), found \(counter): \(Plural.of(n, "encrypted PDU")) the sniffer did not hear",
            fields: [("missed", .int(n))])
    }

    /// A PDU whose MIC failed: shown encrypted, said, its bytes undecoded.
    private func micFailed(_ header: LLDataHeader, _ c: LLConnection, _ r: CaptureRecord, _ why: String) -> [UInt8]? {
        undecrypted(header, c, r)
        say(r, c, LLDiagnostics.micBad, "\(why): PDU not decoded", bytes: header.payload.count)
        return nil
    }

    /// An encrypted PDU no key decrypts: shown as such.
    private func undecrypted(_ header: LLDataHeader, _ c: LLConnection, _ r: CaptureRecord) {
        var m = header.message("Encrypted PDU")
        m.fields.append(("encrypted", .bool(true)))
        emit(m, r, r.direction, connection: c.key.handle, isTop: true)
    }

    func say(
        _ r: CaptureRecord, _ c: LLConnection, _ kind: DiagnosticKind, _ message: String, bytes: Int = 0,
        fields: [(String, FieldValue)] = []
    ) {
        var d = Diagnostic(kind, message, fields: fields)
        d.undecodedBytes = bytes
        ctx.say(r, c.key.handle, d)
    }
}
