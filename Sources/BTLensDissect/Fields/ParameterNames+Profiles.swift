extension ParameterNames {
    /// The parameters of `hfp`, `avdtp`, `avdtp.media` and `avrcp` events, of credit-based channels
    /// and their diagnostics (docs/jsonl.md).
    static let profiles: Set<String> = [
        // HFP and the eSCO link
        "line", "form", "arguments", "features", "codecs", "codec", "gain", "codec_record", "sco_handle", "air_mode",
        // L2CAP credit-based channels
        "mps", "from_record", "stalled_ms", "excess",
        // AVDTP signalling and media
        "message_type", "signal", "acp_seid", "int_seid", "seid", "seps", "media_type", "sampling_frequencies",
        "channel_modes", "block_lengths", "subbands", "allocation", "bitpool_min", "bitpool_max", "object_types",
        "bitrate", "vbr", "content_protection", "delay_ms", "error_name", "service_category", "stream_state",
        "seids", "packets", "duration_ms", "packets_per_s", "kbps", "lost", "not_rtp", "acp_seids", "security_data",
        "layers",
        "crc", "mpf", "bitrate_indexes", "channels",
        // AVRCP
        "ctype", "subunit_type", "subunit_id", "operation", "state", "company_id", "vendor_operation", "data",
        "unit_type", "unit", "page", "subunits", "packet_type", "parameter_length", "capability", "attribute",
        "settings", "charsets", "battery", "event", "events", "interval_s", "continuing_pdu",
        "continuing_pdu_name", "volume", "volume_percent", "player_id", "scope", "uid", "uid_counter", "company_ids",
        "texts", "title", "artist", "album", "track_number", "total_tracks", "genre", "playing_time",
        "cover_art_handle", "length_ms", "position_ms", "position", "play_status", "system_status", "status_name",
        "folder_uid", "search", "item_count", "folder_depth", "path", "items", "items_not_listed", "pid",
    ]

    /// The keys of `log` and `log.alignment` events and of the `app.*` diagnostics.
    static let appLog: Set<String> = [
        "source", "level", "tag", "matches_record", "offset_ms", "matched", "method", "earlier_line", "air_record",
        "earlier_air_record",
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
