/// AVDTP's identity (AVDTP 1.3): signalling, shown as `Start accept` (the signal and its message
/// type), and each stream's media, counted.
extension ProfileDescriptor {
    static let avdtp = ProfileDescriptor(
        type: "avdtp", layer: "AVDTP", parameters: avdtpParameters, psms: [(PSM.avdtp, "AVDTP")],
        decodeAs: [("avdtp", { .cid($0, psm: PSM.avdtp) })]
    ) { m in
        let type = m.string("message_type").map { " " + $0.replacingOccurrences(of: "_", with: " ") }
        return ProfileHeading(m.name + (type ?? ""), said: ["transaction", "message_type", "signal"])
    }

    static let avdtpMedia = ProfileDescriptor(
        type: "avdtp.media", layer: "AVDTP", parameters: avdtpParameters,
        decodeAs: [("avdtp-media", { .avdtpMedia(cid: $0) })])

    /// The parameters of `avdtp` and `avdtp.media` events (docs/jsonl.md).
    private static let avdtpParameters: Set<String> = [
        "message_type", "signal", "acp_seid", "int_seid", "seid", "seps", "media_type", "sampling_frequencies",
        "channel_modes", "block_lengths", "subbands", "allocation", "bitpool_min", "bitpool_max", "object_types",
        "bitrate", "vbr", "content_protection", "delay_ms", "error_name", "service_category", "stream_state",
        "seids", "packets", "duration_ms", "packets_per_s", "kbps", "lost", "not_rtp", "acp_seids", "security_data",
        "layers", "crc", "mpf", "bitrate_indexes", "channels",
    ]
}

extension Profile {
    static let avdtp = Profile(.avdtp)
    static let avdtpMedia = Profile(.avdtpMedia)
}

extension PSM {
    public static let avdtp: UInt16 = 0x0019
}
