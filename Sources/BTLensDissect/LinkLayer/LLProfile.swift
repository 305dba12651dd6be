/// The LE link layer's identity, as a sniffer hears it (Core v5.4 Vol 6 Part B): advertising channel
/// PDUs and the link layer's own data channel PDUs (control PDUs, empty and encrypted ones) shown
/// by their specification names, `LL_VERSION_IND`, `CONNECT_IND`.
extension ProfileDescriptor {
    static let ll = ProfileDescriptor(type: "ll", layer: "LL", parameters: llParameters) { m in
        // The data header's bits are in JSONL; the text says the SN of a retransmission only.
        let said: Set<String> = [
            "pdu_type", "opcode", "llid", "nesn", "sn", "md", "retransmission", "encrypted", "decrypted",
        ]
        guard m.fields.contains(where: { $0.0 == "retransmission" }),
            case .int(let sn)? = m.fields.first(where: { $0.0 == "sn" })?.1
        else { return ProfileHeading(m.name, said: said) }
        return ProfileHeading("\(m.name) SN \(sn)", said: said)
    }

    /// The parameters of `ll` events (docs/jsonl.md).
    private static let llParameters: Set<String> = [
        "pdu_type", "access_address", "adv_address", "adv_address_type", "target_address",
        "scan_address", "init_address", "local_name", "ad_flags", "tx_power", "company_id", "services",
        "adv_mode", "adi_sid", "adi_did", "aux_channel", "aux_phy", "crc_init", "win_size", "win_offset",
        "interval_ms", "latency", "timeout_ms", "channel_map", "hop", "sca", "llid", "nesn", "sn", "md",
        "length", "retransmission", "encrypted", "decrypted", "opcode", "reason", "reason_name", "instant", "rand",
        "ediv", "skd",
        "iv",
        "features", "version", "company", "subversion", "max_rx_octets", "max_rx_time", "max_tx_octets",
        "max_tx_time", "tx_phys", "rx_phys", "phy_c_to_p", "phy_p_to_c", "unknown_type", "reject_opcode",
        "data", "chain_record", "chain_by", "chain_parts", "chain_bytes",
    ]
}

extension Profile {
    static let ll = Profile(.ll)
}
