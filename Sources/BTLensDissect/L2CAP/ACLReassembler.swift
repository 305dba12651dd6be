import BTLensCore

public enum L2CAPDiagnostics {
    public static let unexpectedStart = DiagnosticKind(
        "l2cap.unexpected_start", .warning,
        "A start fragment arrived while an earlier PDU on the same handle and direction was incomplete; the earlier one is dropped."
    )
    public static let unexpectedContinuation = DiagnosticKind(
        "l2cap.unexpected_continuation", .warning,
        "A continuation fragment with no PDU in progress; its bytes are dropped.")
    public static let continuationAtCaptureStart = DiagnosticKind(
        "l2cap.continuation_at_capture_start", .note,
        "The capture began in the middle of a PDU; its first fragments are not decoded.")
    public static let continuationAfterCut = DiagnosticKind(
        "l2cap.continuation_after_cut", .note,
        "A continuation of a PDU whose start the capture cut short; it cannot be reassembled.")
    public static let overLength = DiagnosticKind(
        "l2cap.overlength", .error, "Fragments carry more bytes than the L2CAP length field; the excess is not decoded."
    )
    public static let incomplete = DiagnosticKind(
        "l2cap.incomplete", .warning,
        "A PDU was still incomplete at disconnection or at the end of the capture.")
    public static let shortHeader = DiagnosticKind(
        "l2cap.header_cut", .warning, "A PDU ended before its 4-byte basic header was complete.")

    public static let signalingMalformed = DiagnosticKind(
        "l2cap.signaling.malformed", .error,
        "An L2CAP signalling command runs past the end of its PDU, or is shorter than its parameters.")

    public static let guessed = DiagnosticKind(
        "l2cap.channel.guessed", .note,
        "A dynamic channel whose setup is not in the capture is decoded by a guess (its frames fit the protocol); said once per channel."
    )

    public static let guessWithdrawn = DiagnosticKind(
        "l2cap.channel.guess_withdrawn", .note,
        "A PDU after the first on a channel guessed to carry RFCOMM is no RFCOMM frame: the guess is withdrawn and the channel's PDUs, from its first, are shown undecoded."
    )

    public static let reassemblyLimit = DiagnosticKind(
        "l2cap.reassembly_limit", .warning,
        "PDUs being reassembled on all links together would pass btlens' bound (--limit reassembly-bytes); the one that grew past it is dropped."
    )

    public static let all = [
        guessed, guessWithdrawn, reassemblyLimit, signalingMalformed, unexpectedStart, unexpectedContinuation,
        continuationAtCaptureStart, continuationAfterCut,
        overLength, incomplete, shortHeader,
    ]
}

/// Reassembly is per controller, connection handle and direction: fragments of two links never mix.
public struct ACLKey: Hashable, Sendable, Comparable {
    public var connection: ConnectionKey
    public var direction: Direction
    public init(_ connection: ConnectionKey, _ direction: Direction) {
        self.connection = connection
        self.direction = direction
    }
    public static func < (a: ACLKey, b: ACLKey) -> Bool {
        (a.connection, a.direction.rawValue) < (b.connection, b.direction.rawValue)
    }
}

/// A whole L2CAP PDU (basic header: length u16 LE, channel id u16 LE; then the payload).
public struct L2CAPPDU: Sendable {
    public var cid: UInt16
    public var declaredLength: Int
    public var payload: ArraySlice<UInt8>
    public var firstRecord: Int
    /// The capture cut one of its fragments: the payload is shorter than declared.
    public var truncated: Bool

    /// The payload, taken out of the PDU: it moves, with no reference counted.
    public consuming func takePayload() -> ArraySlice<UInt8> { payload }
}

/// ACL fragments in, L2CAP PDUs out. State is one buffer per (index, handle, direction), at most
/// 65,539 bytes each (the L2CAP length field is 16 bits), freed on disconnection.
public struct ACLReassembler: Sendable {
    struct Partial {
        var bytes: [UInt8]
        var firstRecord: Int
        /// Header + payload length, once the 4-byte header is in.
        var need: Int?
        /// The records of the continuing fragments so far, the last `recordLimit` of them.
        var continuations: [Int] = []
    }

    /// The continuation records a PDU keeps, the newest: one of 64 KiB sent a byte at a time would
    /// otherwise list tens of thousands.
    public static let recordLimit = 256

    public struct Output {
        public var pdu: L2CAPPDU?
        /// The records of the PDU's continuing fragments (`L2CAPInfo.continuations`), where the
        /// reassembler keeps them: apart from the PDU, which every upper layer receives.
        public var continuations: [Int] = []
        public var diagnostics: [Diagnostic] = []
        /// Bytes that reached no decoder.
        public var dropped = 0
        /// Whether `continuations` is filled (`ACLReassembler.tracksRecords`).
        var tracksRecords = true
    }

    /// What one link direction is doing; one lookup per fragment finds all of it.
    struct Slot {
        var partial: Partial?
        /// A start fragment was seen: a continuation without a PDU is an error, not the capture's start.
        var started = false
        /// The capture cut the current PDU: its continuations are expected and not errors.
        var afterCut = false
        /// The last fragment's record and time: the link's last traffic this way.
        var last: Lifecycle.Step?
        /// The rest of a PDU dropped at the reassembly limit: its continuations are counted and said
        /// once, when it would have ended.
        var skipping: Skipping?
    }

    struct Skipping {
        var firstRecord: Int
        var left: Int
        var bytes = 0
        var fragments = 0
    }

    private var slots: [ACLKey: Slot] = [:]
    /// Where the last two link directions' slots are in `slots` (traffic alternates between the
    /// two directions of a link): a run of fragments hashes nothing. Forgotten whenever a slot is
    /// added or removed, as that moves the others.
    private var recent: [(key: ACLKey, index: Dictionary<ACLKey, Slot>.Index)] = []
    /// `Limits.reassemblyBytes`: PDUs in progress on all links together; the one that would pass it is dropped.
    public let limit: Int
    /// Bytes of PDUs in progress now.
    public private(set) var buffered = 0

    /// Whether PDUs name the records of their continuations: only the lower layers' events show them.
    public let tracksRecords: Bool

    public init(limit: Int = Limits().reassemblyBytes, tracksRecords: Bool = true) {
        self.limit = limit
        self.tracksRecords = tracksRecords
    }

    /// The number of PDUs being reassembled (for memory accounting and tests).
    public var inProgress: Int { slots.values.reduce(0) { $0 + ($1.partial == nil ? 0 : 1) } }

    /// The fragment is taken, not copied: a PDU in one fragment is handed on as its storage.
    public mutating func push(
        _ key: ACLKey, boundary: UInt8, fragment: consuming ArraySlice<UInt8>, record: Int,
        time: Timestamp = Timestamp(microseconds: 0), cutByCapture: Bool
    ) -> Output {
        var out = Output()
        out.tracksRecords = tracksRecords
        buffered += Self.push(
            &slots.values[index(key)], boundary: boundary, fragment: fragment, record: record, time: time,
            cutByCapture: cutByCapture, room: limit - buffered, limit: limit, &out)
        return out
    }

    /// One fragment into its slot, bounded: returns how the bytes in progress changed.
    private static func push(
        _ slot: inout Slot, boundary: UInt8, fragment: consuming ArraySlice<UInt8>, record: Int,
        time: Timestamp, cutByCapture: Bool, room: Int, limit: Int, _ out: inout Output
    ) -> Int {
        let before = slot.partial?.bytes.count ?? 0
        slot.last = Lifecycle.Step(record: record, time: time)
        push(&slot, boundary: boundary, fragment: fragment, record: record, cutByCapture: cutByCapture, &out)
        return bound(&slot, before: before, room: room, limit: limit, &out)
    }

    /// The slot of a link direction, made with its first fragment.
    private mutating func index(_ key: ACLKey) -> Dictionary<ACLKey, Slot>.Index {
        if let hit = recent.first(where: { $0.key == key }) { return hit.index }
        guard let index = slots.index(forKey: key) else {
            slots[key] = Slot()
            recent.removeAll(keepingCapacity: true)
            return self.index(key)
        }
        if recent.count == 2 { recent.removeFirst() }
        recent.append((key, index))
        return index
    }

    /// If a slot's PDU in progress grew past `room` (from `before` bytes), drops it and says so.
    /// Returns how the bytes in progress changed.
    private static func bound(_ slot: inout Slot, before: Int, room: Int, limit: Int, _ out: inout Output) -> Int {
        var after = slot.partial?.bytes.count ?? 0
        if after - before > room, let p = slot.partial {
            slot.skipping = Skipping(firstRecord: p.firstRecord, left: (p.need ?? after) - after)
            out.dropped += after
            out.diagnostics.append(
                Diagnostic(
                    L2CAPDiagnostics.reassemblyLimit,
                    "the PDU begun at #\(p.firstRecord) (\(after) of \(p.need.map(String.init) ?? "?") bytes) would take reassembly on all links past \(limit) bytes; it is dropped",
                    fields: [("have", .int(after)), ("limit", .int(limit)), ("first_record", .int(p.firstRecord))]))
            slot.partial = nil
            after = 0
        }
        return after - before
    }

    private static func push(
        _ slot: inout Slot, boundary: UInt8, fragment: consuming ArraySlice<UInt8>, record: Int,
        cutByCapture: Bool, _ out: inout Output
    ) {
        if ACLPacketBoundary(flag: boundary) == .continuingFragment {
            continuation(&slot, fragment, record, cutByCapture, &out)
            return
        }
        endSkipping(&slot, &out)
        if let old = slot.partial {
            slot.partial = nil
            out.dropped += old.bytes.count
            out.diagnostics.append(
                Diagnostic(
                    L2CAPDiagnostics.unexpectedStart,
                    "start fragment while the PDU begun at #\(old.firstRecord) has \(old.bytes.count) of \(old.need.map(String.init) ?? "?") bytes; that PDU is dropped",
                    fields: [
                        ("have", .int(old.bytes.count)), ("need", .int(old.need ?? 0)),
                        ("first_record", .int(old.firstRecord)),
                    ]))
        }
        slot.started = true
        slot.afterCut = false
        var partial = Partial(bytes: [], firstRecord: record, need: nil)
        if fragment.count >= 4, !cutByCapture {
            // Fast path: a complete PDU in one fragment is passed on without copying.
            let need = Int(fragment[fragment.startIndex]) | Int(fragment[fragment.startIndex + 1]) << 8
            if fragment.count == need + 4 {
                out.pdu = makePDU(consume fragment, firstRecord: record, truncated: false)
                return
            }
            partial.need = need + 4
        }
        partial.bytes = Array(fragment)
        settle(&slot, &partial, cutByCapture, &out)
    }

    private static func continuation(
        _ slot: inout Slot, _ fragment: ArraySlice<UInt8>, _ record: Int, _ cut: Bool,
        _ out: inout Output
    ) {
        if var skip = slot.skipping {
            skip.bytes += fragment.count
            skip.fragments += 1
            skip.left -= fragment.count
            out.dropped += fragment.count
            slot.skipping = skip
            if skip.left <= 0 { endSkipping(&slot, &out) }
            return
        }
        guard var partial = slot.partial else {
            out.dropped += fragment.count
            let kind: DiagnosticKind
            let message: String
            if slot.afterCut {
                kind = L2CAPDiagnostics.continuationAfterCut
                message = "continuation of \(fragment.count) bytes belongs to a PDU the capture cut short"
            } else if !slot.started {
                kind = L2CAPDiagnostics.continuationAtCaptureStart
                message = "continuation of \(fragment.count) bytes before any start fragment: the capture began mid-PDU"
            } else {
                kind = L2CAPDiagnostics.unexpectedContinuation
                message = "continuation of \(fragment.count) bytes with no PDU in progress"
            }
            out.diagnostics.append(Diagnostic(kind, message, fields: [("bytes", .int(fragment.count))]))
            return
        }
        // Taken out of the slot so the append does not copy it.
        slot.partial = nil
        partial.bytes.append(contentsOf: fragment)
        if out.tracksRecords {
            if partial.continuations.count >= Self.recordLimit { partial.continuations.removeFirst() }
            partial.continuations.append(record)
        }
        settle(&slot, &partial, cut, &out)
    }

    /// Says how much of a PDU dropped at the limit followed it (once, not per fragment).
    private static func endSkipping(_ slot: inout Slot, _ out: inout Output) {
        guard let skip = slot.skipping else { return }
        slot.skipping = nil
        guard skip.fragments > 0 else { return }
        var d = Diagnostic(
            L2CAPDiagnostics.reassemblyLimit,
            "\(skip.bytes) more bytes in \(skip.fragments) continuations of the PDU begun at #\(skip.firstRecord), dropped at the reassembly limit, were not decoded",
            fields: [
                ("bytes", .int(skip.bytes)), ("fragments", .int(skip.fragments)),
                ("first_record", .int(skip.firstRecord)),
            ])
        d.undecodedBytes = skip.bytes
        out.diagnostics.append(d)
    }

    /// Delivers the PDU if complete (or cut by the capture), else keeps it.
    private static func settle(_ slot: inout Slot, _ partial: inout Partial, _ cut: Bool, _ out: inout Output) {
        if partial.need == nil, partial.bytes.count >= 4 {
            partial.need = (Int(partial.bytes[0]) | Int(partial.bytes[1]) << 8) + 4
        }
        if let need = partial.need, partial.bytes.count >= need {
            let extra = partial.bytes.count - need
            if extra > 0 {
                out.dropped += extra
                out.diagnostics.append(
                    Diagnostic(
                        L2CAPDiagnostics.overLength,
                        "fragments carry \(partial.bytes.count) bytes; the L2CAP header says \(need): \(extra) extra bytes",
                        fields: [("have", .int(partial.bytes.count)), ("need", .int(need)), ("extra", .int(extra))]))
            }
            out.pdu = makePDU(partial.bytes[0..<need], firstRecord: partial.firstRecord, truncated: false)
            out.continuations = partial.continuations
            return
        }
        if cut {
            slot.afterCut = true
            if partial.bytes.count >= 4 {
                out.pdu = makePDU(partial.bytes[...], firstRecord: partial.firstRecord, truncated: true)
                out.continuations = partial.continuations
            } else {
                out.dropped += partial.bytes.count
            }
            return
        }
        slot.partial = partial
    }

    private static func makePDU(_ bytes: consuming ArraySlice<UInt8>, firstRecord: Int, truncated: Bool) -> L2CAPPDU {
        var r = ByteReader(consume bytes)
        let length = Int((try? r.u16le()) ?? 0)
        let cid = (try? r.u16le()) ?? 0
        return L2CAPPDU(
            cid: cid, declaredLength: length, payload: r.rest(), firstRecord: firstRecord, truncated: truncated)
    }

    /// The last fragment either way on a connection.
    public func lastTraffic(_ connection: ConnectionKey) -> Lifecycle.Step? {
        Direction.allCases.compactMap { slots[ACLKey(connection, $0)]?.last }.max { $0.record < $1.record }
    }

    /// Drops the state of a connection (both directions); incomplete PDUs become diagnostics.
    public mutating func close(_ connection: ConnectionKey) -> [(Direction, Diagnostic, Int)] {
        var out: [(Direction, Diagnostic, Int)] = []
        recent.removeAll(keepingCapacity: true)
        for direction in Direction.allCases {
            guard var slot = slots.removeValue(forKey: ACLKey(connection, direction)) else { continue }
            if let p = slot.partial {
                buffered -= p.bytes.count
                out.append((direction, Self.incomplete(p, when: "at disconnection"), p.bytes.count))
            }
            var skipped = Output()
            Self.endSkipping(&slot, &skipped)
            out += skipped.diagnostics.map { (direction, $0, $0.undecodedBytes) }
        }
        return out
    }

    /// End of capture: every PDU still in progress, in a stable order.
    public mutating func finish() -> [(ACLKey, Diagnostic, Int)] {
        var out: [(ACLKey, Diagnostic, Int)] = []
        for key in slots.keys.sorted() {
            guard var slot = slots[key] else { continue }
            if let p = slot.partial {
                out.append((key, Self.incomplete(p, when: "at the end of the capture"), p.bytes.count))
            }
            var skipped = Output()
            Self.endSkipping(&slot, &skipped)
            out += skipped.diagnostics.map { (key, $0, $0.undecodedBytes) }
        }
        slots.removeAll()
        recent.removeAll()
        buffered = 0
        return out
    }

    private static func incomplete(_ p: Partial, when: String) -> Diagnostic {
        if let need = p.need {
            return Diagnostic(
                L2CAPDiagnostics.incomplete,
                "PDU begun at #\(p.firstRecord) incomplete \(when): \(p.bytes.count) of \(need) bytes",
                fields: [("have", .int(p.bytes.count)), ("need", .int(need)), ("first_record", .int(p.firstRecord))])
        }
        return Diagnostic(
            L2CAPDiagnostics.shortHeader,
            "PDU begun at #\(p.firstRecord) ended \(when) inside its header: \(p.bytes.count) of 4 bytes",
            fields: [("have", .int(p.bytes.count)), ("need", .int(4)), ("first_record", .int(p.firstRecord))])
    }
}
