/// The names of packets' and diagnostics' parameters (docs/jsonl.md): keys that are not an event
/// type's declared fields (`EventFields`) but that the decoders put in an event's list of them.
public enum ParameterNames {
    public static let all = packets.union(hci).union(creditChannels).union(smp).union(appLog)
        .union(Analyzer.profiles.flatMap(\.parameters))

    /// The parameters of ATT, L2CAP signalling, RFCOMM and iAP2 packets and of diagnostics.
    static let packets: Set<String> = [
        "actual", "address_type", "addresses", "after_record", "attribute_type", "attribute_value", "attributes",
        "available",
        "back_us", "buffers", "channel", "characteristics", "claimed", "client_rx_mtu", "completed", "count",
        "declared", "destination_cid", "detected_record", "encryption", "end", "error", "error_code", "expected",
        "extra", "extra_bytes", "failed", "field", "frames", "handle", "handles", "have", "held_bytes", "included",
        "interval_max", "interval_min", "interval_ms", "last", "last_record", "latency", "limit", "link_type",
        "local_name", "max_rx_octets", "max_tx_octets", "microseconds", "missed", "missing", "mtu", "need", "needed",
        "offset", "origin", "original", "parameters", "parts", "present", "previous_record", "protocol_id", "psm_name",
        "ranges", "records", "reports", "request", "request_record", "response", "result", "revision", "rx_phy",
        "server_rx_mtu", "signature", "since_record", "skipped_bytes", "source_cid", "stalled_us", "start",
        "suppressed_id", "time_us", "timeout_ms", "tx_phy", "values",
    ]
}
