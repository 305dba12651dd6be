import BTLensCapture
import BTLensCore

/// Framed streams and their dissectors: which dissector a stream is bound to, frames named and
/// decoded, responses paired with requests (outstanding requests per dissector and connection, EA
/// session or RFCOMM channel, freed when the connection closes), and a stream's output as events.
final class DissectorLayer: ConnectionLayer {
    /// A pairing context: one dissector on one connection (both characteristics), EA session or RFCOMM channel.
    struct PairKey: Hashable, Comparable {
        enum Scope: Hashable, Comparable {
            case connection
            case eaSession(UInt16)
            case rfcomm(dlci: UInt8)
            case l2cap(psm: UInt16)
        }
        var connection: ConnectionKey
        var dissector: String
        var scope = Scope.connection
        /// Not the dissector's name: a connection has one or two dissectors, and hashing a string
        /// per frame costs more than comparing it.
        func hash(into h: inout Hasher) {
            h.combine(connection)
            h.combine(scope)
        }
        static func < (a: PairKey, b: PairKey) -> Bool {
            if (a.connection, a.dissector) != (b.connection, b.dissector) {
                return (a.connection, a.dissector) < (b.connection, b.dissector)
            }
            return a.scope < b.scope
        }
    }

    private let ctx: LayerContext
    /// `ctx.tally`, held here too: reached through `ctx`, the cell is retained at every count.
    private let tally: SingleOwnerCell<Tally>
    private let hci: HCILayer
    /// Outstanding requests per dissector and connection (or EA session); freed on disconnection.
    private var pairings: [PairKey: PairingContext] = [:]

    init(_ ctx: LayerContext, hci: HCILayer) {
        self.ctx = ctx
        tally = ctx.tally
        self.hci = hci
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        endPairings(connection, record: place.record, time: place.time, reason: reason)
    }

    func finish(at place: RecordPlace) {
        for connection in Set(pairings.keys.map(\.connection)).sorted() {
            endPairings(connection, record: place.record, time: place.time, reason: "the end of the capture")
        }
    }

    /// The stream for a characteristic: bound by `--decode-as`, by its UUID, else (detected A5
    /// streams) by the device's vendor, else plain A5 detection.
    func boundStream(
        handle: UInt16, uuid: BluetoothUUID?, connection: ConnectionKey,
        direction: Direction
    ) -> BoundStream {
        let limit = ctx.limits.messageBytes
        // Frames are shown (their payloads decoded where shown), or only counted (`stats`).
        let shown = ctx.detail == .full
        for case .attHandle(let h, let name, let message) in ctx.decodeAs where h == handle {
            guard let d = ctx.dissectors.dissector(named: name) else { continue }
            // A whole-value message is read as the characteristic whose binding names it.
            if let message, let value = d.valueCharacteristic(named: message) {
                let framing = d.bindings.first { $0.key == .characteristic(value) }?.framing
                return BoundStream(
                    d, framing: framing ?? .values(commandByte: false), detect: false, direction: direction,
                    messageLimit: limit, keepsPayloads: shown, uuid: value)
            }
            return BoundStream(
                d, framing: d.framing, detect: false, direction: direction, messageLimit: limit,
                keepsPayloads: shown, uuid: uuid)
        }
        let device = hci.device(connection)
        if let uuid, let bound = ctx.dissectors.lookup(.characteristic(uuid), on: device) {
            return BoundStream(
                bound.dissector, framing: bound.framing, detect: false, direction: direction,
                messageLimit: limit, keepsPayloads: shown, uuid: uuid)
        }
        if let d = ctx.dissectors.forDevice(device), case .frames = d.framing {
            return BoundStream(
                d, framing: d.framing, detect: true, direction: direction, messageLimit: limit,
                keepsPayloads: shown, uuid: uuid)
        }
        return BoundStream(
            nil, framing: nil, detect: true, direction: direction, messageLimit: limit,
            keepsPayloads: ctx.valueBytes, uuid: uuid)
    }

    /// Names and decodes one frame for its event, and pairs it.
    /// Returns diagnostics to emit before the frame (requests that timed out) and after it, and
    /// whether the frame showed that the dissector does not fit the stream.
    func dissect(
        _ f: borrowing Frame, _ naming: inout FrameInfo.Naming, uuid: BluetoothUUID?,
        bound d: BoundDissector, pairKey: PairKey, direction: Direction, record: Int, time: Timestamp
    ) -> (before: [Diagnostic], after: [Diagnostic], misfit: Bool) {
        // Here only what pairing and diagnostics need: the values are decoded where the frame is
        // shown (`FrameInfo.decoded`), on the renderer's thread. Most frames are named by their
        // command and length alone.
        let command = naming.hasCommand ? f.command : nil
        naming.dissector = d.name
        naming.decoder = d
        naming.direction = direction
        naming.characteristic = uuid
        if let verdict = d.base.verdict(
            command: command, from: direction, characteristic: uuid, payloadCount: f.payloadCount)
        {
            let paired = pair(
                command: command, sequence: f.sequence, token: token(f, command, d, direction, uuid),
                name: verdict.name, kind: verdict.kind, bound: d, pairKey: pairKey, direction: direction,
                record: record, time: time)
            naming.pairing = paired.response
            let misfit = d.fit.count(verdict)
            naming.named = MessageVerdict(
                name: verdict.name, kind: Self.kind(verdict.kind, command: command, direction, d.pairing))
            return (paired.before, paired.after, misfit)
        }
        let decoded = d.base.decode(
            Message(
                command: command, flags: f.flags, payload: f.payload, direction: direction, characteristic: uuid,
                wantsFields: false))
        let paired = pair(
            command: command, sequence: f.sequence, token: token(f, command, d, direction, uuid), name: decoded.name,
            kind: decoded.kind, bound: d, pairKey: pairKey, direction: direction, record: record, time: time)
        naming.pairing = paired.response
        naming.named = MessageVerdict(
            name: decoded.name, kind: Self.kind(decoded.kind, command: command, direction, d.pairing))
        return (paired.before, decoded.problems + paired.after, d.fit.count(decoded))
    }

    /// What pairing made of one named frame: the request it answers, requests that timed out (to
    /// emit before the frame), and what it found wrong (after it, and after the decode's problems).
    struct Paired {
        var response: PairedResponse?
        var before: [Diagnostic] = []
        var after: [Diagnostic] = []
    }

    /// Pairs a named frame with the requests outstanding in its context.
    /// A whole-value message (no command) is neither request nor response: it is not paired.
    func pair(
        command: UInt16?, sequence: UInt8?, token: String?, name: String?, kind: MessageKind?,
        bound d: BoundDissector, pairKey: PairKey, direction: Direction, record: Int, time: Timestamp
    ) -> Paired {
        var out = Paired()
        guard let rule = d.pairing, let command else { return out }
        let pending = ctx.limits.pendingRequests
        // A stream's frames pair in one context, kept by the stream: most frames find it unhashed.
        let context: PairingContext
        if let c = d.pairs, c.isOpen {
            context = c
        } else if let c = pairings[pairKey] {
            context = c
            d.pairs = c
        } else {
            context = PairingContext(PairingTracker(rule: rule, limit: pending))
            pairings[pairKey] = context
            d.pairs = context
        }
        out.before = context.tracker.expire(now: time).map {
            unanswered($0, d.name, rule, why: "within \(rule.timeoutMicroseconds / 1000) ms")
        }
        switch Self.kind(kind, command: command, direction, rule) {
        case .request:
            var r = PairingTracker.Request(record: record, time: time, command: command, name: name, sequence: sequence)
            r.token = rule.match == .echo ? String(command) : token
            if let dropped = context.tracker.request(r) {
                out.after.append(unanswered(dropped, d.name, rule, why: "before \(pending) newer requests"))
            }
        case .response:
            if let paired = context.tracker.response(command: command, sequence: sequence, token: token, time: time) {
                out.response = paired
            } else {
                out.after.append(unsolicited(command, sequence, name, d.name))
            }
        case .event:
            break
        }
        return out
    }

    /// A message's kind, as paired and shown: the definition's, else the phone's messages are
    /// requests; the accessory's are responses where its command may answer one (pairing's
    /// `response-command`), else events, as are its whole values (no command).
    static func kind(
        _ kind: MessageKind?, command: UInt16?, _ direction: Direction, _ rule: PairingRule?
    ) -> MessageKind {
        if let kind { return kind }
        if direction == .sent { return .request }
        guard let command else { return .event }
        let answers = rule.map { $0.responseCommand.couldRespond(command) } ?? true
        return answers ? .response : .event
    }

    private func unsolicited(_ command: UInt16, _ sequence: UInt8?, _ name: String?, _ dissector: String) -> Diagnostic
    {
        var fields: [(String, FieldValue)] = [("command", .int(command))]
        if let s = sequence { fields.append(("sequence", .int(s))) }
        fields.append(("dissector", .string(dissector)))
        return Diagnostic(
            DissectorDiagnostics.unsolicited,
            "\(label(command, name))\(sequence.map { " sequence \($0)" } ?? ""): no outstanding request it answers",
            fields: fields)
    }

    /// Requests still outstanding when their context ends.
    func endPairings(_ connection: ConnectionKey, record: Int, time: Timestamp, reason: String) {
        for key in pairings.keys.filter({ $0.connection == connection }).sorted() {
            guard let context = pairings.removeValue(forKey: key) else { continue }
            context.isOpen = false
            // As on its streams, a dissector of another framing than A5 is named (`named`).
            var prefix = "\(key.dissector): "
            if case .frames(let f)? = ctx.dissectors.dissector(named: key.dissector)?.framing,
                f.name == FrameFormat.a5Name
            {
                prefix = ""
            }
            for r in context.tracker.drain() {
                var d = unanswered(r, key.dissector, context.tracker.rule, why: "before \(reason)")
                d.message = prefix + d.message
                ctx.emit(
                    Event(
                        record: record, timestamp: time, direction: .sent, connection: connection.handle,
                        isTop: true, body: .diagnostic(d)))
            }
        }
    }

    private func unanswered(
        _ r: PairingTracker.Request, _ dissector: String, _ rule: PairingRule,
        why: String
    ) -> Diagnostic {
        var fields: [(String, FieldValue)] = [("command", .int(r.command))]
        if let s = r.sequence { fields.append(("sequence", .int(s))) }
        fields += [
            ("request_record", .int(r.record)), ("timeout_ms", .int(Int(rule.timeoutMicroseconds / 1000))),
            ("dissector", .string(dissector)),
        ]
        return Diagnostic(
            DissectorDiagnostics.unanswered,
            "\(label(r.command, r.name))\(r.sequence.map { " sequence \($0)" } ?? "") sent at #\(r.record): no response \(why)",
            fields: fields)
    }

    private func label(_ command: UInt16, _ name: String?) -> String {
        name.map { "\($0) (\(Hex.value(command, width: 2)))" } ?? "command \(Hex.value(command, width: 2))"
    }

    /// A stream's output as events, whatever carried the stream: a frame labelled by `info` and
    /// decoded by the stream's dissector, a diagnostic tagged with the stream it came from.
    func a5Event(
        _ output: consuming FramedStream.Output, stream: (String, FieldValue), label: BoundStream.Label,
        pairKey: PairKey?, direction: Direction, connection: UInt16, record: Int, time: Timestamp,
        info: (consuming Frame, consuming FrameInfo.Naming) -> FrameInfo
    ) {
        func send(_ body: consuming EventBody, _ from: Direction? = nil) {
            ctx.emit(
                Event(
                    record: record, timestamp: time, direction: from ?? direction, connection: connection,
                    isTop: true, body: body))
        }
        func tagged(_ d: Diagnostic) -> EventBody { self.tagged(Self.named(d, label), stream) }
        switch consume output {
        case .frame(let f):
            // A stream with a dissector has a pair key: the key is checked first, as it costs no copy.
            guard let pairKey, let d = label.bound else {
                guard ctx.detail == .full else { return count(f, label, direction: direction) }
                return send(.frame(info(consume f, FrameInfo.Naming(label))))
            }
            guard ctx.detail == .full else {
                return countNamed(
                    f, label, d, stream: stream, pairKey: pairKey, direction: direction, record: record, time: time,
                    send: send)
            }
            var naming = FrameInfo.Naming(label)
            let (before, after, misfit) = dissect(
                f, &naming, uuid: label.uuid, bound: d, pairKey: pairKey,
                direction: direction, record: record, time: time)
            // Requests that timed out: the phone's, whichever stream noticed.
            for diagnostic in before { send(.diagnostic(Self.named(diagnostic, label)), .sent) }
            send(.frame(info(consume f, consume naming)))
            for diagnostic in after { send(tagged(diagnostic)) }
            if misfit { send(tagged(d.fit.note(d.base, stream: stream))) }
        case .diagnostic(var d):
            let began = d.began
            d.began = nil
            guard let began, began.record != record else { return send(tagged(d)) }
            // Put where the problem began; where it showed is kept beside it.
            d.fields.append(("detected_record", .int(record)))
            ctx.emit(
                Event(
                    record: began.record, timestamp: began.time, direction: direction, connection: connection,
                    isTop: true, body: tagged(d)))
        }
    }

    /// The framing and dissector diagnostics keep their `a5.` ids for every framing (a stable
    /// contract): on a stream of another framing (a variant, whole values), their message names
    /// the dissector whose messages they are about.
    static func named(_ d: Diagnostic, _ label: BoundStream.Label) -> Diagnostic {
        guard !label.isA5, let name = label.bound?.name, d.id.hasPrefix("a5.") else { return d }
        var d = d
        d.message = "\(name): \(d.message)"
        return d
    }

    /// A diagnostic tagged with the stream it came from.
    private func tagged(_ d: Diagnostic, _ stream: (String, FieldValue)) -> EventBody {
        var d = d
        d.fields.append(stream)
        return .diagnostic(ctx.with(d, undecoded: d.field("skipped_bytes") ?? d.field("have")))
    }

    /// A named frame counted and not sent (`.counts` detail): its name, problems and pairing
    /// decoded, without the event's naming.
    private func countNamed(
        _ f: borrowing Frame, _ label: BoundStream.Label, _ d: BoundDissector, stream: (String, FieldValue),
        pairKey: PairKey, direction: Direction, record: Int, time: Timestamp,
        send: (consuming EventBody, Direction?) -> Void
    ) {
        let hasCommand = label.framing != nil || label.commandByte
        let command = hasCommand ? f.command : nil
        // Most frames are named by their command and length alone, with no message or decode built.
        if let verdict = d.base.verdict(
            command: command, from: direction, characteristic: label.uuid, payloadCount: f.payloadCount)
        {
            return counted(
                f, label, d, verdict, problems: [], misfit: d.fit.count(verdict), stream: stream, pairKey: pairKey,
                direction: direction, record: record, time: time, send: send)
        }
        let decoded = d.base.decode(
            Message(
                command: command, flags: f.flags, payload: f.payload, payloadCount: f.payloadCount,
                direction: direction, characteristic: label.uuid, wantsFields: false))
        counted(
            f, label, d, MessageVerdict(name: decoded.name, kind: decoded.kind), problems: decoded.problems,
            misfit: d.fit.count(decoded), stream: stream, pairKey: pairKey, direction: direction, record: record,
            time: time, send: send)
    }

    /// A named frame's pairing, counts and problems (`.counts` detail).
    private func counted(
        _ f: borrowing Frame, _ label: BoundStream.Label, _ d: BoundDissector, _ verdict: borrowing MessageVerdict,
        problems: [Diagnostic], misfit: Bool, stream: (String, FieldValue), pairKey: PairKey, direction: Direction,
        record: Int, time: Timestamp, send: (consuming EventBody, Direction?) -> Void
    ) {
        let command = label.framing != nil || label.commandByte ? f.command : nil
        let paired = pair(
            command: command, sequence: f.sequence, token: token(f, command, d, direction, label.uuid),
            name: verdict.name, kind: verdict.kind, bound: d, pairKey: pairKey, direction: direction, record: record,
            time: time)
        for diagnostic in paired.before { send(.diagnostic(Self.named(diagnostic, label)), .sent) }
        count(f, label, direction: direction)
        let slot = d.statsSlot ?? tally.value.commands.slot(for: d.name)
        if d.statsSlot == nil { d.statsSlot = slot }
        tally.value.commands.message(
            slot: slot, command: f.command, hasCommand: label.framing != nil || label.commandByte, name: verdict.name,
            direction: direction, pairing: paired.response)
        for diagnostic in problems { send(tagged(Self.named(diagnostic, label), stream), nil) }
        for diagnostic in paired.after { send(tagged(Self.named(diagnostic, label), stream), nil) }
        if misfit { send(tagged(d.fit.note(d.base, stream: stream), stream), nil) }
    }

    /// A frame counted and not sent (`.counts` detail).
    private func count(_ f: borrowing Frame, _ label: BoundStream.Label, direction: Direction) {
        guard label.isA5 else {
            guard label.framing != nil, let d = label.dissector else { return }
            return tally.value.framed.frame(d.name, received: direction == .received, checksumOK: f.checksumOK)
        }
        tally.value.a5Frames[Int(direction.rawValue)] += 1
        if !f.checksumOK { tally.value.a5BadChecksum += 1 }
    }
}
