/// A field name resolved when the filter is compiled: the keys every renderer writes by a fixed name
/// are an enum case (a switch per event, no string compared); the parameters of HCI, ATT, L2CAP,
/// RFCOMM and iAP2 packets and of diagnostics are looked up by name in the event's list of them.
struct Field {
    /// The fixed keys of the JSONL contract.
    enum Key: String {
        case type, record, time, reltime, direction, connection
        // frames
        case transport
        case attHandle = "att_handle"
        case uuid
        case eaSession = "ea_session"
        case `protocol`
        case rfcommChannel = "rfcomm_channel"
        case framing, command, sequence, flags
        case payload
        case checksumOk = "checksum_ok"
        case version, checksum, fragments, dissector
        case commandName = "command_name"
        case kind, fields
        case flagsNames = "flags_names"
        case responseTo = "response_to"
        case latencyMs = "latency_ms"
        // diagnostics
        case id, severity, message
        case packetOffset = "packet_offset"
        // other events
        case category, text, opcode, name, code, subevent, change, controller, address, role, inferred, reason
        case status
        case openedRecord = "opened_record"
        case boundary, length, cid
        case firstRecord = "first_record"
        case truncated, identifier, dlci, frame
        case pollFinal = "poll_final"
        case credits, mux, pdu, transaction, services, psn, pan, session
        case sessionType = "session_type"
        case payloadLength = "payload_length"
        case detail
        case messageId = "message_id"
        case model, manufacturer, serial, firmware, hardware, protocols
        case value
        case uuidName = "uuid_name"
        case what, bytes
        case bytesCut = "bytes_cut"
        /// Any other name: a parameter of a packet or a diagnostic.
        case parameter
    }

    let key: Key
    /// The first component of the name (`fields` in `fields.preset`).
    let name: String
    /// The components after the first (`["preset"]`).
    let rest: [String]
    /// The whole name, as written.
    let path: String

    /// The event types that can hold the field, at most; nil when any can. A parameter may be in
    /// any packet's or diagnostic's list, but the ATT PDUs' are known (ATTDecoder+Parameters) and
    /// hold no `command`, `sequence`, `version` or `checksum`: `stats -Y 'command == 0x90'` counts
    /// ATT PDUs without sending them as events.
    var possibleTypes: TypeSet? {
        switch key {
        case .id, .severity, .packetOffset: return TypeSet(bits: EventType.diagnostic.bit)
        case .message: return TypeSet(bits: EventType.diagnostic.bit | EventType.log.bit)
        case .commandName, .fields, .flagsNames, .responseTo, .latencyMs, .checksumOk, .payload, .framing, .fragments:
            return TypeSet(bits: EventType.a5.bit | EventType.message.bit)
        case .command, .sequence, .version, .checksum:
            return TypeSet(bits: EventType.allCases.reduce(0) { $0 | $1.bit } & ~EventType.att.bit)
        default: return nil
        }
    }

    init(_ path: String) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        name = parts.first ?? path
        rest = Array(parts.dropFirst())
        key = Key(rawValue: name) ?? .parameter
        self.path = path
    }
}
