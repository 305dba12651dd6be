import BTLensCore
import BTLensCapture

/// Bytes that arrived while a guess about their channel stood unconfirmed: kept (within
/// `--limit guess-bytes`, all channels together) so that a guess the data contradicts can show the
/// channel from its start, not from the packet that contradicted it.
struct HeldData {
    struct Piece {
        var record: Int
        var time: Timestamp
        var direction: Direction
        var bytes: [UInt8]
    }

    private(set) var pieces: [Piece] = []
    private(set) var count = 0

    mutating func append(_ p: Piece) {
        pieces.append(p)
        count += p.bytes.count
    }

    /// The first `n` bytes held from `direction`.
    func start(_ direction: Direction, _ n: Int) -> [UInt8] {
        Array(pieces.lazy.filter { $0.direction == direction }.flatMap(\.bytes).prefix(n))
    }
}

/// An RFCOMM channel that may carry iAP2, until its data confirms or contradicts it.
struct IAP2Guess {
    /// Its SDP record lists an iAP2 service class; else its first bytes looked like iAP2 (or may yet).
    var fromSDP: Bool
    var held = HeldData()
}

/// A dynamic channel with no captured setup whose first PDU fit RFCOMM.
enum L2CAPGuess {
    /// That first PDU, not yet decoded: the next PDU on the channel confirms the guess or withdraws it.
    case held(CaptureRecord)
    case rfcomm
    case withdrawn
}

/// Guesses about what a channel carries are withdrawn at the first packet that contradicts them;
/// the channel's bytes are then shown from its start as plain data. What would make a guess keep
/// more than `--limit guess-bytes` withdraws it.
extension Analyzer {
    // MARK: L2CAP → RFCOMM

    /// A dynamic channel with no captured setup: the PSM `--decode-as` gives, or RFCOMM while the
    /// guess that it carries RFCOMM stands. nil when the PDU was held or shown undecoded here.
    func unsignalledPSM(_ pdu: borrowing L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) -> UInt16? {
        for case .cid(let cid, let psm) in decodeAs where cid == pdu.cid { return psm }
        let channel = L2CAPChannelMap.Key(connection: key, direction: direction, cid: pdu.cid)
        let name = L2CAPChannel.name(pdu.cid)
        switch guessed[channel] {
        case .rfcomm?:
            return PSM.rfcomm
        case .withdrawn?:
            undecoded(r, key.handle, name, pdu.payload)
            return nil
        case .held(let first)?:
            heldBytes -= first.payload.count
            // A PDU the capture cut short proves nothing either way: the guess stands.
            if !pdu.truncated, let misfit = RFCOMMFrame.misfit(pdu.payload) {
                guessed[channel] = .withdrawn
                say(r, key.handle, Diagnostic(L2CAPDiagnostics.guessWithdrawn,
                                              "channel \(Hex.value(pdu.cid, width: 4)) was taken for RFCOMM from its first frame (#\(first.number)), but this PDU of \(pdu.payload.count) bytes is no RFCOMM frame: \(misfit). Its PDUs from the first are shown undecoded (--decode-as \(Hex.value(pdu.cid, width: 4))=rfcomm overrides)",
                                              fields: [("cid", .hex(pdu.cid)), ("first_record", .int(first.number))]), direction)
                undecoded(first, key.handle, name, first.payload)
                undecoded(r, key.handle, name, pdu.payload)
                return nil
            }
            guessed[channel] = .rfcomm
            rfcomm(first.payload, key, direction, first)
            return PSM.rfcomm
        case nil:
            guard !pdu.truncated, RFCOMMFrame.misfit(pdu.payload) == nil, heldBytes + pdu.payload.count <= limits.guessBytes else {
                undecoded(r, key.handle, name, pdu.payload)
                return nil
            }
            say(r, key.handle, Diagnostic(L2CAPDiagnostics.guessed,
                                          "no captured signalling says what channel \(Hex.value(pdu.cid, width: 4)) carries; its frames parse as RFCOMM with a valid FCS, so it is decoded as RFCOMM (a guess, withdrawn if a later frame does not fit; --decode-as overrides)",
                                          fields: [("cid", .hex(pdu.cid)), ("psm", .hex(PSM.rfcomm))]), direction)
            // The frame waits for the next: decoded if that one fits too, shown undecoded if not.
            var first = r
            first.payload = ArraySlice(Array(pdu.payload))
            first.originalLength = first.payload.count
            heldBytes += first.payload.count
            guessed[channel] = .held(first)
            return nil
        }
    }

    // MARK: RFCOMM → iAP2

    /// A piece of an RFCOMM channel that may carry iAP2. Until a guess is made (SDP said so, or the
    /// first bytes one way look like iAP2) the first bytes are held; once made, the link's first item
    /// confirms it (its events follow) or contradicts it (withdrawn).
    func guessIAP2(_ ck: ChannelKey, _ piece: HeldData.Piece) {
        guard var guess = iap2Guesses.removeValue(forKey: ck) else { return }
        heldBytes += piece.bytes.count
        guess.held.append(piece)
        guard heldBytes <= limits.guessBytes else {
            return withdraw(ck, guess, piece, made: iap2Links.removeValue(forKey: ck) != nil,
                            found: "it has sent \(guess.held.count) bytes and no iAP2 packet yet, past --limit guess-bytes")
        }
        if iap2Links[ck] != nil { return feed(ck, guess, guess.held.pieces.suffix(1)) }
        if !guess.fromSDP, !iap2ServerChannels.contains(ck) {
            // Detect bytes or a link header need 6 or 9 bytes before they can be judged.
            let seen = guess.held.start(piece.direction, IAP2LinkPacket.headerLength)
            if IAP2Framer.mayLookLikeIAP2(seen[...]) {
                iap2Guesses[ck] = guess
                return
            }
            // Not a guess at all: nothing to withdraw, nothing to say.
            guard IAP2Framer.looksLikeIAP2(seen[...]) else { return withdraw(ck, guess, piece, made: false, found: "") }
        }
        iap2Links[ck] = IAP2Link()
        feed(ck, guess, guess.held.pieces[...])
    }

    /// Pieces for a link whose guess is not yet confirmed: no item, no output; the first item decides.
    private func feed(_ ck: ChannelKey, _ guess: IAP2Guess, _ pieces: ArraySlice<HeldData.Piece>) {
        guard var link = iap2Links.removeValue(forKey: ck) else { return }
        for (i, p) in zip(pieces.indices, pieces) {
            let outputs = link.push(p.bytes[...], direction: p.direction, time: p.time)
            switch link.verdict {
            case nil:
                continue
            case .contradicted(let c)?:
                let start = guess.held.start(p.direction, 8)
                return withdraw(ck, guess, p, made: true, found: "its \(p.direction.name) data begins \(Hex.spaced(start))\(start.count == 8 ? " …" : ""): \(c.found)")
            case .confirmed?:
                heldBytes -= guess.held.count
                iap2Links[ck] = link
                for o in outputs { iap2(o, ck, p.direction, p.record, p.time) }
                for rest in pieces[(i + 1)...] { push(rest.bytes[...], ck, rest.direction, rest.record, rest.time) }
                return
            }
        }
        iap2Links[ck] = link
        iap2Guesses[ck] = guess
    }

    /// The guess is gone: said at the piece that contradicted it (if a guess was made), and the
    /// channel's bytes, from its start, shown as RFCOMM data, as all its later bytes will be.
    private func withdraw(_ ck: ChannelKey, _ guess: IAP2Guess, _ at: HeldData.Piece, made: Bool, found: String) {
        heldBytes -= guess.held.count
        notIAP2.insert(ck)
        let channel = ck.dlci >> 1
        if made {
            let basis = guess.fromSDP || iap2ServerChannels.contains(ck) ? "its SDP record lists the iAP2 service class" : "its first bytes looked like iAP2"
            emit(Event(record: at.record, timestamp: at.time, direction: at.direction, connection: ck.connection.handle, isTop: true,
                       body: .diagnostic(Diagnostic(RFCOMMDiagnostics.guessWithdrawn,
                                                    "RFCOMM channel \(channel) was taken for iAP2 (\(basis)), but \(found), where the detect bytes FF 55 02 00 EE 10 or a link packet FF 5A were expected. Its \(guess.held.count) bytes so far, and all that follow, are shown as RFCOMM data (--decode-as rfcomm:\(channel)=iap2 overrides)",
                                                    fields: [("channel", .int(channel)), ("held_bytes", .int(guess.held.count))]))))
        }
        for p in guess.held.pieces { plain(ck, p) }
    }

    /// Bytes of an RFCOMM channel that is not iAP2: to the dissector its SDP service class binds, else undecoded.
    private func plain(_ ck: ChannelKey, _ p: HeldData.Piece) {
        if let bound = rfcommBindings[ck] { return rfcommMessages(p.bytes[...], ck, bound, p.direction, p.record, p.time) }
        undecoded(record: p.record, time: p.time, direction: p.direction, ck.connection.handle, "RFCOMM channel \(ck.dlci >> 1)", p.bytes[...])
    }

    /// A connection (nil: every one) ends with guesses unconfirmed: nothing contradicted them, so they
    /// stand; first bytes that never became a guess are shown undecoded.
    func settleGuesses(_ connection: ConnectionKey?) {
        let held = guessed.compactMap { channel, guess -> (L2CAPChannelMap.Key, CaptureRecord)? in
            guard case .held(let first) = guess, connection == nil || channel.connection == connection else { return nil }
            return (channel, first)
        }
        // One record holds at most one PDU: its number orders them.
        for (channel, first) in held.sorted(by: { $0.1.number < $1.1.number }) {
            heldBytes -= first.payload.count
            guessed[channel] = .rfcomm
            rfcomm(first.payload, channel.connection, channel.direction, first)
        }
        for ck in iap2Guesses.keys.filter({ connection == nil || $0.connection == connection }).sorted() {
            guard let guess = iap2Guesses.removeValue(forKey: ck) else { continue }
            heldBytes -= guess.held.count
            if iap2Links[ck] == nil {
                notIAP2.insert(ck)
                for p in guess.held.pieces { plain(ck, p) }
            }
        }
    }
}
