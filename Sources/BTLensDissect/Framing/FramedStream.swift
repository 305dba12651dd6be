import BTLensCore

/// A framed protocol (the A5 frame or a variant) on one stream (a characteristic and direction of a
/// connection, or an EA session and direction): detection, framing and sequence tracking.
///
/// Detection: an unbound stream is framed (as A5) when one of its first `detectionValues` values starts with a
/// frame whose checksum holds. Bytes of earlier values are reported as a resync once it is detected.
/// A stream a dissector is bound to is framed from its first byte.
public struct FramedStream: Sendable {
    public static let detectionValues = 4

    public enum Output: Sendable {
        case frame(Frame)
        case diagnostic(Diagnostic)
    }

    enum State {
        case undecided(values: Int, preamble: Int)
        case framed, notFramed
    }

    private var state: State
    private var framer: MessageFramer
    private(set) var sequences: SequenceCounters
    /// A message sent in several frames, joined so far.
    private var joining: (first: Frame, payload: [UInt8], next: UInt8, length: Int)?
    /// A message whose frames say another follows (`FrameFormat.more`), joined so far.
    var flagged: FlaggedJoin?
    /// The largest message joined from several frames.
    /// `Limits.messageBytes`.
    public let messageLimit: Int
    /// False where responses echo their request's sequence: the stream's own numbering is not a counter.
    private let tracksSequence: Bool
    /// The A5 frame itself (its version is checked), not a vendor's variant.
    private let isA5Format: Bool
    /// The records the buffered bytes came from.
    private var origins = ByteOrigins()

    /// `payloads`: see `MessageFramer`.
    public init(
        format: FrameFormat = .a5, detect: Bool = true, tracksSequence: Bool = true, sequencePer: SequenceKey? = nil,
        messageLimit: Int = Limits().messageBytes, payloads: PayloadPolicy = .keepAll
    ) {
        self.messageLimit = messageLimit
        framer = MessageFramer(format: format, payloads: payloads, frameLimit: messageLimit)
        state = detect ? .undecided(values: 0, preamble: 0) : .framed
        self.tracksSequence = tracksSequence
        sequences = SequenceCounters(per: sequencePer)
        isA5Format = format == .a5
    }

    public var format: FrameFormat { framer.format }

    public var isFramed: Bool { if case .framed = state { return true } else { return false } }
    public var isRejected: Bool { if case .notFramed = state { return true } else { return false } }

    /// Feeds one ATT value (or EA chunk) of record `place` (nil apart from a capture); returns frames
    /// and diagnostics in order.
    public mutating func push(_ value: ArraySlice<UInt8>, at place: RecordPlace? = nil) -> [Output] {
        var outputs: [Output] = []
        push(value, at: place) { outputs.append($0) }
        return outputs
    }

    /// Feeds one ATT value (or EA chunk) of record `place`, handing each frame and diagnostic to `out`
    /// in order: a frame is moved to its consumer, not copied into an array and out of it.
    public mutating func push(
        _ value: some Collection<UInt8>, at place: RecordPlace?, _ out: (consuming Output) -> Void
    ) {
        if case .notFramed = state { return }
        origins.begin(value.count, place)
        push(value, out)
        // Bytes skipped but not yet reported keep their records until a frame or the stream's end says
        // so; before detection every byte may yet be a preamble.
        origins.end(consumedUpTo: isFramed ? origins.total - framer.buffered - framer.skipped : 0)
    }

    private mutating func push(_ value: some Collection<UInt8>, _ out: (consuming Output) -> Void) {
        switch state {
        case .notFramed:
            return
        case .framed:
            framer.valueBegins()
            framer.append(value)
            drain(out)
        case .undecided(var values, var preamble):
            // Only values that could open a frame count toward detection; the rest of a long
            // first frame continues the open candidate (at most one frame's length).
            let magic = framer.format.magic.first
            if value.first == magic || framer.buffered == 0 {
                preamble += framer.buffered
                framer = framer.restarted
                values += 1
                if value.first != magic {
                    preamble += value.count
                    state = values >= Self.detectionValues ? .notFramed : .undecided(values: values, preamble: preamble)
                    return
                }
            }
            framer.append(value)
            // Before detection, a framing's preamble is one more byte run before the first frame.
            if let n = framer.takePreamble() { preamble += n }
            guard let step = framer.next() else {
                state = .undecided(values: values, preamble: preamble)
                return
            }
            guard step.frame.checksumOK else {
                preamble += step.frame.length + framer.buffered
                framer = framer.restarted
                state = values >= Self.detectionValues ? .notFramed : .undecided(values: values, preamble: preamble)
                return
            }
            state = .framed
            if preamble > 0 {
                // The preamble is every byte before the frame, from the stream's first.
                let why = "expected the first frame (its magic, a checksum that holds), found bytes before it"
                out(.diagnostic(resync(preamble, before: step.frame, from: 0, why: why)))
            }
            join(step.frame, out)
            drain(out)
        }
    }

    /// The capture lost bytes of this stream: any partial frame is reported and dropped.
    public mutating func hole() -> [Output] {
        guard isFramed else {
            framer = framer.restarted
            return []
        }
        var outputs: [Output] = []
        leftovers(reason: "a record the capture cut short") { outputs.append($0) }
        framer.loseSync()
        origins.consumed(upTo: origins.total)
        return outputs
    }

    /// The stream ends (disconnection, end of capture): report what is left in the buffer.
    public mutating func finish(reason: String) -> [Output] {
        guard isFramed else { return [] }
        var outputs: [Output] = []
        leftovers(reason: reason) { outputs.append($0) }
        framer = framer.restarted
        origins.consumed(upTo: origins.total)
        return outputs
    }

    // The steps below hand their outputs to one consumer, `out`.

    private mutating func leftovers(reason: String, _ out: (consuming Output) -> Void) {
        abandon("the stream ended (\(reason))", out)
        let unconsumed = origins.total - framer.buffered
        if framer.skipped > 0 {
            let why = text(framer.skipReason)
            out(.diagnostic(resync(framer.skipped, before: nil, from: unconsumed - framer.skipped, why: why)))
            framer.clearSkipped()
        }
        if let p = framer.partial {
            var d = Diagnostic(
                FramingDiagnostics.truncated,
                "stream ended by \(reason) inside a frame: "
                    + (p.need > 0 ? "\(p.have) of \(p.need) bytes present" : "\(p.have) bytes present, no end byte"),
                fields: [("have", .int(p.have)), ("need", .int(p.need))])
            d.began = origins.place(at: unconsumed)
            out(.diagnostic(d))
        }
    }

    private mutating func drain(_ out: (consuming Output) -> Void) {
        if let n = framer.takePreamble() { out(.diagnostic(preamble(n, from: origins.total - framer.buffered - n))) }
        while let step = framer.next() {
            if step.skipped > 0 {
                let start = origins.total - framer.buffered - step.frame.length - step.skipped
                out(.diagnostic(resync(step.skipped, before: step.frame, from: start, why: text(step.skipReason))))
            }
            join(step.frame, out)
        }
    }

    /// Frames of a message sent in several are joined; the message is accepted at its last frame,
    /// its checksum checked over the joined payload.
    private mutating func join(_ frame: consuming Frame, _ out: (consuming Output) -> Void) {
        if let more = framer.format.more { return joinFlagged(frame, more, out) }
        guard let part = frame.fragment, part.count > 1 else {
            if joining != nil { abandon("a frame of another message", out) }
            return accept(frame, out)
        }
        if part.index == 1 {
            abandon("the first frame of another message", out)
            joining = (frame, frame.payload, 2, frame.length)
            return
        }
        guard var j = joining, part.index == j.next, part.count == j.first.fragment?.count,
            frame.sequence == j.first.sequence
        else {
            abandon("frame \(part.index) of \(part.count)", out)
            return out(
                missing(
                    frame, "frame \(part.index) of \(part.count) with no earlier frames of its message", frames: 1,
                    bytes: frame.length))
        }
        j.payload += frame.payload
        j.length += frame.length
        j.next = part.index &+ 1
        joining = j
        guard j.payload.count <= messageLimit else {
            return abandon("its joined payload passed \(messageLimit) bytes", out)
        }
        guard part.index == part.count else { return }
        joining = nil
        var whole = j.first
        whole.payload = j.payload
        whole.payloadCount = j.payload.count
        whole.length = j.length
        whole.fragment = part
        whole.checksum = frame.checksum
        whole.expectedChecksum = framer.format.checksum?.algorithm.compute(j.payload)
        accept(whole, out)
    }

    /// Drops a message being joined, saying why.
    mutating func abandon(_ why: String, _ out: (consuming Output) -> Void) {
        abandonFlagged(why, out)
        guard let j = joining else { return }
        joining = nil
        // The index after frame 255 wraps to 0 (a one-byte field): 0 - 1 wraps back to 255.
        let have = Int(j.next &- 1)
        out(
            missing(
                j.first, "\(have) of \(j.first.fragment?.count ?? 0) frames, then \(why)", frames: have, bytes: j.length
            ))
    }

    func missing(_ first: Frame, _ what: String, frames: Int, bytes: Int) -> Output {
        var fields: [(String, FieldValue)] = [("command", .int(first.command))]
        if let s = first.sequence { fields.append(("sequence", .int(s))) }
        fields += [("have", .int(frames)), ("count", .int(first.fragment?.count ?? 0))]
        var d = Diagnostic(
            FramingDiagnostics.fragmentMissing,
            "message \(Hex.value(first.command, width: 2))\(first.sequence.map { " sequence \($0)" } ?? ""): \(what); \(bytes) bytes dropped",
            fields: fields)
        d.undecodedBytes = bytes
        return .diagnostic(d)
    }

    /// `tracked`: the sequence numbers of its frames were tracked as they came (a flagged message's).
    mutating func accept(_ frame: consuming Frame, _ out: (consuming Output) -> Void, tracked: Bool = false) {
        // The header is read before the frame moves on: its diagnostics follow it.
        let (version, command, sequence, flags) = (frame.version, frame.command, frame.sequence, frame.flags)
        let (actual, expected) = (frame.checksum, frame.expectedChecksum)
        out(.frame(consume frame))
        if isA5Format, let version, version != 1 {
            out(
                .diagnostic(
                    Diagnostic(
                        FramingDiagnostics.versionUnknown,
                        "version \(Hex.value(version, width: 2)); expected 0x01",
                        fields: [("version", .int(version))])))
        }
        if actual != expected, let actual, let expected {
            out(
                .diagnostic(
                    FramingDiagnostics.badChecksum(
                        command: command, sequence: sequence, actual: actual, expected: expected,
                        width: framer.format.checksum?.algorithm.width ?? 1)))
        }
        if !tracked { trackSequence(sequence, command: command, version: version, flags: flags, out) }
    }

    /// Gaps and duplicates in the stream's sequence numbers (counted per a header field's value,
    /// where the framing says).
    mutating func trackSequence(
        _ sequence: UInt8?, command: UInt16, version: UInt8?, flags: UInt8?, _ out: (consuming Output) -> Void
    ) {
        guard tracksSequence, let sequence else { return }
        let key = sequences.keyValue(command: command, version: version, flags: flags)
        guard let last = sequences.record(sequence, under: key) else { return }
        if let d = sequenceCheck(sequence, after: last, command: command, key: key) { out(.diagnostic(d)) }
    }

    private func text(_ reason: SkipReason?) -> String? { reason?.text(framer.format, limit: framer.frameLimit) }

    /// The preamble of `n` bytes that began the stream at position `start`.
    private func preamble(_ n: Int, from start: Int) -> Diagnostic {
        let bytes = framer.format.preamble
        let printable = bytes.allSatisfy { (0x20..<0x7f).contains($0) }
        let shown = printable ? "\"\(String(decoding: bytes, as: UTF8.self))\"" : Hex.string(bytes)
        var d = Diagnostic(
            FramingDiagnostics.preamble, "the stream's preamble \(shown) (\(n) bytes), before its first frame",
            fields: [("preamble_bytes", .int(n))])
        d.began = origins.place(at: start)
        return d
    }

    /// `start`: the stream position of the first byte skipped, whose record the diagnostic names.
    /// `why`: what the framing expected where the first byte was skipped, and what it found.
    private func resync(_ skipped: Int, before frame: Frame?, from start: Int, why: String?) -> Diagnostic {
        let whereTo =
            frame.map { f in
                f.sequence.map { "before the frame with sequence \($0)" }
                    ?? "before the frame with command \(Hex.value(f.command, width: 2))"
            }
            ?? "with no frame after them"
        var d = Diagnostic(
            FramingDiagnostics.resync,
            "skipped \(skipped) byte\(skipped == 1 ? "" : "s") that do not form a frame, \(whereTo)"
                + (why.map { ": \($0)" } ?? ""),
            fields: [("skipped_bytes", .int(skipped))])
        d.began = origins.place(at: start)
        return d
    }
}
