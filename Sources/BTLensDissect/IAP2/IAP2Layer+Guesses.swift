import BTLensCapture
import BTLensCore

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

/// An iAP2 guess is withdrawn at the first packet that contradicts it; the channel's bytes are
/// then shown from its start as plain data. What would make a guess keep more than
/// `--limit guess-bytes` withdraws it.
extension IAP2Layer {
    /// A piece of an RFCOMM channel that may carry iAP2. Until a guess is made (SDP said so, or the
    /// first bytes one way look like iAP2) the first bytes are held; once made, the link's first item
    /// confirms it (its events follow) or contradicts it (withdrawn).
    func guessIAP2(_ ck: RFCOMMChannelKey, _ piece: HeldData.Piece) {
        guard var guess = guesses.removeValue(forKey: ck) else { return }
        budget.heldBytes += piece.bytes.count
        guess.held.append(piece)
        guard budget.heldBytes <= ctx.limits.guessBytes else {
            return withdraw(
                ck, guess, piece, made: links.removeValue(forKey: ck) != nil,
                found: "it has sent \(guess.held.count) bytes and no iAP2 packet yet, past --limit guess-bytes")
        }
        if links[ck] != nil { return feed(ck, guess, guess.held.pieces.suffix(1)) }
        if !guess.fromSDP, !serverChannels.contains(ck) {
            // Detect bytes or a link header need 6 or 9 bytes before they can be judged.
            let seen = guess.held.start(piece.direction, IAP2LinkPacket.headerLength)
            if IAP2Framer.mayLookLikeIAP2(seen[...]) {
                guesses[ck] = guess
                return
            }
            // Not a guess at all: nothing to withdraw, nothing to say.
            guard IAP2Framer.looksLikeIAP2(seen[...]) else { return withdraw(ck, guess, piece, made: false, found: "") }
        }
        links[ck] = IAP2Link()
        feed(ck, guess, guess.held.pieces[...])
    }

    /// Pieces for a link whose guess is not yet confirmed: no item, no output; the first item decides.
    private func feed(_ ck: RFCOMMChannelKey, _ guess: IAP2Guess, _ pieces: ArraySlice<HeldData.Piece>) {
        guard var link = links.removeValue(forKey: ck) else { return }
        for (i, p) in zip(pieces.indices, pieces) {
            let outputs = link.push(p.bytes[...], direction: p.direction, time: p.time)
            switch link.verdict {
            case nil:
                continue
            case .contradicted(let c)?:
                let start = guess.held.start(p.direction, 8)
                return withdraw(
                    ck, guess, p, made: true,
                    found:
                        "its \(p.direction.name) data begins \(Hex.spaced(start))\(start.count == 8 ? " …" : ""): \(c.found)"
                )
            case .confirmed?:
                budget.heldBytes -= guess.held.count
                links[ck] = link
                for o in outputs { iap2(o, ck, p.direction, p.record, p.time) }
                for rest in pieces[(i + 1)...] { push(rest.bytes[...], ck, rest.direction, rest.record, rest.time) }
                return
            }
        }
        links[ck] = link
        guesses[ck] = guess
    }

    /// The guess is gone: said at the piece that contradicted it (if a guess was made), and the
    /// channel's bytes, from its start, shown as RFCOMM data, as all its later bytes will be.
    private func withdraw(_ ck: RFCOMMChannelKey, _ guess: IAP2Guess, _ at: HeldData.Piece, made: Bool, found: String) {
        budget.heldBytes -= guess.held.count
        notIAP2.insert(ck)
        let channel = ck.dlci >> 1
        if made {
            let basis =
                guess.fromSDP || serverChannels.contains(ck)
                ? "its SDP record lists the iAP2 service class" : "its first bytes looked like iAP2"
            ctx.emit(
                Event(
                    record: at.record, timestamp: at.time, direction: at.direction,
                    connection: ck.connection.handle, isTop: true,
                    body: .diagnostic(
                        Diagnostic(
                            RFCOMMDiagnostics.guessWithdrawn,
                            "RFCOMM channel \(channel) was taken for iAP2 (\(basis)), but \(found), where the detect bytes FF 55 02 00 EE 10 or a link packet FF 5A were expected. Its \(guess.held.count) bytes so far, and all that follow, are shown as RFCOMM data (--decode-as rfcomm:\(channel)=iap2 overrides)",
                            fields: [
                                ("channel", .int(channel)),
                                ("held_bytes", .int(guess.held.count)),
                            ]))))
        }
        for p in guess.held.pieces { plain(ck, p) }
    }

    /// Bytes of an RFCOMM channel that is not iAP2: to the dissector its SDP service class binds, else
    /// undecoded.
    private func plain(_ ck: RFCOMMChannelKey, _ p: HeldData.Piece) {
        if let bound = rfcomm.bindings[ck] {
            return rfcomm.messages(p.bytes[...], ck, bound, p.direction, p.record, p.time)
        }
        ctx.undecoded(
            record: p.record, time: p.time, direction: p.direction, ck.connection.handle,
            "RFCOMM channel \(ck.dlci >> 1)", p.bytes[...])
    }

    /// A connection (nil: every one) ends with iAP2 guesses unconfirmed: nothing contradicted them, so
    /// they stand; first bytes that never became a guess are shown undecoded.
    func settleGuesses(_ connection: ConnectionKey?) {
        for ck in guesses.keys.filter({ connection == nil || $0.connection == connection }).sorted() {
            guard let guess = guesses.removeValue(forKey: ck) else { continue }
            budget.heldBytes -= guess.held.count
            if links[ck] == nil {
                notIAP2.insert(ck)
                for p in guess.held.pieces { plain(ck, p) }
            }
        }
    }
}
