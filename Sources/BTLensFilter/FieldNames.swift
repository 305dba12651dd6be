import BTLensCore
import BTLensDissect

/// The names a filter may use: the event types of the JSONL contract (docs/jsonl.md) and the keys
/// of its objects, so that what `--format jsonl` prints is what a filter reads.
enum FieldNames {
    /// Every event type, in the order of `EventType`.
    static let types = EventType.allCases.map(\.name)

    /// Families: a prefix stands for every type under it (`hci` is `hci.command` and `hci.event`).
    static let families = ["hci", "gatt", "l2cap", "iap2", "avdtp"]

    /// The keys of the contract's objects; nested ones (`services.name`) with dots. Under `fields.`
    /// any name goes: a definition names its fields. `reltime` is the text timeline's seconds since
    /// the first event, which JSONL does not print.
    static let known = contract.union(profiles).union(smp).union(appLog).union(hci)

    private static let contract: Set<String> = [
        "actual", "address", "address_type", "addresses", "att_handle", "attribute_type", "attribute_value",
        "attributes", "available", "back_us", "boundary", "buffers", "bytes", "bytes_cut", "category", "change",
        "channel", "characteristics", "checksum", "checksum_ok", "cid", "claimed", "client_rx_mtu", "code",
        "command", "command_name", "completed", "connection", "controller", "count", "credits", "declared",
        "destination_cid", "detail", "detected_record", "direction", "dissector", "dlci", "ea_session", "encryption",
        "end", "error", "error_code", "expected", "extra", "extra_bytes", "failed", "field", "firmware",
        "first_record", "flags", "flags_names", "fragments", "frame", "frames", "framing", "handle", "handles",
        "hardware", "have", "held_bytes", "id", "identifier", "included", "inferred", "interval_max", "interval_min",
        "interval_ms", "kind", "last", "last_record", "latency", "latency_ms", "length", "limit", "link_type",
        "local_name",
        "manufacturer", "max_rx_octets", "max_tx_octets", "message", "message_id", "microseconds", "missing",
        "model", "mtu", "mux", "name", "need", "needed", "offset", "opcode", "opened_record", "origin", "original",
        "packet_offset", "pan", "parameters", "payload", "payload_length", "pdu", "poll_final", "present",
        "previous_record", "protocol", "protocol_id", "protocols", "protocols.id", "protocols.name", "psm",
        "psm_name", "psn", "ranges", "reason", "record", "records", "reltime", "reports", "request", "request_record",
        "response", "response_to", "result", "revision", "rfcomm_channel", "role", "rx_phy", "sequence", "serial",
        "server_rx_mtu", "services", "services.classes", "services.iap2", "services.name", "services.rfcomm_channel",
        "session", "session_type", "severity", "signature", "since_record", "skipped_bytes", "source_cid",
        "stalled_us", "start", "status", "subevent", "suppressed_id", "text", "time", "time_us", "timeout_ms",
        "transaction", "transport", "truncated", "tx_phy", "type", "uuid", "uuid_name", "value", "values", "version",
        "what",
    ]

    /// Fields that hold numbers in every event that has them: a value that is not a number is refused
    /// when the filter is compiled. Not `command`: a Command Complete event names its command.
    static let numeric: Set<String> = [
        "record", "connection", "sequence", "flags", "version", "checksum", "att_handle", "ea_session",
        "rfcomm_channel", "fragments", "response_to", "latency_ms", "reltime", "packet_offset", "opcode", "code",
        "subevent", "controller", "opened_record", "length", "cid", "first_record", "identifier", "dlci",
        "credits", "transaction", "psn", "pan", "session", "payload_length", "message_id", "bytes_cut",
        "detected_record", "offset",
    ]

    /// The known name nearest to `name` (at most two edits, or a third of the name), for "did you mean".
    static func nearest(_ name: String) -> String? {
        let candidates = known.union(types).union(families)
        let best = candidates.map { ($0, EditDistance.levenshtein($0, name)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best, best.1 <= max(2, name.count / 3) else { return nil }
        return best.0
    }
}
