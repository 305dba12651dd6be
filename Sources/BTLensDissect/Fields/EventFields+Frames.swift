import BTLensCore

extension EventFields {
    private static let on = FieldDeclarer<FrameInfo> { e in
        if case .frame(let a) = e.body { return a }
        return nil
    }

    /// `a5` and `message` (`framing` is the latter's only).
    static let frame: [EventField] =
        [
            on("transport", .string, "what carried the stream: att, iap2, rfcomm or l2cap") {
                .string($0.transport.rawValue)
            },
            EventField.connection,
            on("att_handle", .integer, "the characteristic value handle") { .integer($0.attHandle) },
            on("uuid", .uuid, "the characteristic's UUID") { .text($0.uuid?.description) },
            on("ea_session", .integer, "the External Accessory session") { .integer($0.eaSession) },
            on("protocol", .string, "the EA session's protocol string") { .text($0.protocolName) },
            on("rfcomm_channel", .integer, "the RFCOMM server channel") { .integer($0.rfcommChannel) },
            on("psm", .integer, "the PSM the credit-based channel was opened to") {
                .integer($0.l2capChannel.flatMap { $0.psm == 0 ? nil : $0.psm })  // 0: bound by CID
            },
            on("cid", .integer, "the credit-based channel's receiver CID") { .integer($0.l2capChannel?.cid) },
            on("framing", .string, "the variant framing's name, or value for a whole ATT value") {
                $0.isA5 ? nil : .string($0.framing ?? "value")
            },
            on("command", .integer, "the command id") { $0.hasCommand ? .int(Int64($0.frame.command)) : nil },
            on("sequence", .integer, "the header's sequence number") { .integer($0.frame.sequence) },
            on("flags", .integer, "the header's flags") { .integer($0.frame.flags) },
            on("payload", .bytes, "the payload") { .bytes($0.frame.payload[...]) },
            on("checksum_ok", .boolean, "whether the checksum holds") {
                $0.frame.checksum == nil ? nil : .bool($0.frame.checksumOK)
            },
            on("version", .integer, "the header's version") { .integer($0.frame.version) },
            on("checksum", .integer, "the checksum carried") { .integer($0.frame.checksum) },
            on("fragments", .integer, "how many frames a message was joined from") {
                $0.frame.isPartOfMessage ? .integer($0.frame.fragment?.count) : nil
            },
        ] + dissected

    /// What the bound dissector said: written only when there is one.
    private static let dissected: [EventField] =
        [
            on("dissector", .string, "the bound definition's or Swift dissector's name") { .text($0.dissector) },
            on("command_name", .string, "the message's name") { $0.dissector == nil ? nil : .text($0.messageName) },
            on("kind", .string, "request, response or event") {
                $0.dissector == nil ? nil : .text($0.messageKind?.rawValue)
            },
        ] + decodedFields + [
            on("response_to", .integer, "the record of the request a response answers") {
                $0.dissector == nil ? nil : .integer($0.pairing?.requestRecord)
            },
            on("latency_ms", .number, "the time between request and response") { a in
                guard a.dissector != nil, let p = a.pairing else { return nil }
                return .number(Double(p.latencyMicroseconds) / 1000)
            },
        ]

    /// The fields that cost a decoding of the frame's payload.
    public static let decodedFields: [EventField] = [
        on.nested("fields", .object, "the message's fields by name", members: nil) { a, rest in
            guard a.dissector != nil, let d = a.decoded else { return nil }
            return MessagePath.value(d.fields, rest)
        },
        on.nested("flags_names", .array, "the names of the flag bits set", members: []) { a, rest in
            guard a.dissector != nil, rest.isEmpty, let d = a.decoded else { return nil }
            return .list(d.flagNames.map { .string($0) })
        },
        on("encrypted", .boolean, "true when the payload is encrypted: shown as bytes, not decoded") { a in
            guard a.dissector != nil, let d = a.decoded, d.encrypted else { return nil }
            return .bool(true)
        },
    ]

    private static let diagnosed = FieldDeclarer<Diagnostic> { e in
        if case .diagnostic(let d) = e.body { return d }
        return nil
    }

    /// Read as its rank, for a filter's order: note < warning < error.
    public static let severity = diagnosed("severity", .string, "note, warning or error") {
        .int(Int64($0.severity.rawValue))
    }

    static let diagnostic: [EventField] = [
        type,
        diagnosed("id", .string, "the stable dotted id") { .string($0.id) },
        severity,
        record, time,
        EventField("direction", .string, "as every event's, null when there is none", nullable: true) {
            e, _ in direction.read(e, [])
        },
        diagnosed("message", .string, "what was expected and what was found") { .string($0.message) },
        EventField.connection,
        diagnosed("packet_offset", .integer, "the offset in the packet where it went wrong") {
            .integer($0.packetOffset)
        },
        EventField.parameter("detected_record", .integer, "the later record that revealed the problem"),
        EventField.parameter("offset", .integer, "a capture reader's problem: its byte offset in the file"),
    ]
}
