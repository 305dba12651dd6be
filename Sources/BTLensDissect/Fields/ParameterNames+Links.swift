extension ParameterNames {
    /// The parameters of credit-based channels' events and diagnostics (docs/jsonl.md); a
    /// profile's are in its descriptor.
    static let creditChannels: Set<String> = ["mps", "from_record", "stalled_ms", "excess"]

    /// The keys of `log` and `log.alignment` events and of the `app.*` diagnostics.
    static let appLog: Set<String> = [
        "source", "level", "tag", "matches_record", "offset_ms", "matched", "method", "earlier_line", "air_record",
        "earlier_air_record", "whole_capture", "read_ahead_lines",
    ]

    /// The parameters of `smp` events.
    static let smp: Set<String> = [
        "io_capability", "oob_data", "bonding", "mitm", "secure_connections", "keypress", "max_key_size",
        "initiator_keys", "responder_keys", "reason_name", "ediv", "notification", "ltk", "irk", "csrk", "rand",
        "confirm", "random", "public_key", "dhkey_check",
    ]

    /// AVRCP names a metadata attribute's cut bytes and character set after it (`title_bytes_cut`,
    /// `artist_charset`), and an attribute it has no name for by number (`attribute_9`).
    public static func isAttributeDetail(_ name: String) -> Bool {
        name.hasSuffix("_bytes_cut") || name.hasSuffix("_charset") || name.hasPrefix("attribute_")
    }
}
