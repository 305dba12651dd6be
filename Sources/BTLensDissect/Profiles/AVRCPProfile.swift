/// AVRCP's identity (AVRCP 1.6.2), over AVCTP's control and browsing channels: a PDU or operation
/// shown by name and its AV/C ctype or response, `RegisterNotification interim`.
extension ProfileDescriptor {
    static let avrcp = ProfileDescriptor(
        type: "avrcp", layer: "AVRCP", parameters: avrcpParameters,
        psms: [(PSM.avctp, "AVCTP"), (PSM.avctpBrowsing, "AVCTP Browsing")],
        decodeAs: [
            ("avctp", { .cid($0, psm: PSM.avctp) }), ("avctp-browsing", { .cid($0, psm: PSM.avctpBrowsing) }),
        ]
    ) { m in
        let type = (m.string("ctype") ?? m.string("kind")).map { " " + $0.replacingOccurrences(of: "_", with: " ") }
        var said: Set<String> = ["transaction", "kind", "ctype", "opcode", "pdu"]
        // A packet type other than single (a fragment) is worth saying.
        if m.string("packet_type") == "single" { said.insert("packet_type") }
        return ProfileHeading(m.name + (type ?? ""), said: said)
    }

    /// The parameters of `avrcp` events (docs/jsonl.md).
    private static let avrcpParameters: Set<String> = [
        "ctype", "subunit_type", "subunit_id", "operation", "state", "company_id", "vendor_operation", "data",
        "unit_type", "unit", "page", "subunits", "packet_type", "parameter_length", "capability", "attribute",
        "settings", "charsets", "battery", "event", "events", "interval_s", "continuing_pdu",
        "continuing_pdu_name", "volume", "volume_percent", "player_id", "scope", "uid", "uid_counter", "company_ids",
        "texts", "title", "artist", "album", "track_number", "total_tracks", "genre", "playing_time",
        "cover_art_handle", "length_ms", "position_ms", "position", "play_status", "system_status", "status_name",
        "folder_uid", "search", "item_count", "folder_depth", "path", "items", "items_not_listed", "pid",
    ]
}

extension Profile {
    static let avrcp = Profile(.avrcp)
}

extension PSM {
    public static let avctp: UInt16 = 0x0017
    public static let avctpBrowsing: UInt16 = 0x001b
}
