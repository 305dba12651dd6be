/// Which JSONL key shows each field tshark decodes in an HCI command or event, an L2CAP signalling
/// command or an SDP PDU of the real captures (Wireshark 4.0's names). `a|b` is either key, for a
/// field tshark shows in more than one kind of packet.
enum TsharkFieldNames {
    static let keys: [String: String] = hci.merging(l2cap) { a, _ in a }.merging(sdp) { a, _ in a }

    /// Fields tshark derives or that frame what follows (lengths, links to other frames, times, SDP's
    /// continuation state: btlens joins the responses it links), and the byte the Core Specification
    /// now reserves (page_scan_mode): no parameter to show.
    static let ignored: Set<String> = [
        "bthci_cmd.param_length", "bthci_evt.param_length", "bthci_evt.command_in_frame",
        "bthci_evt.command_pending_delta", "bthci_evt.command_response_delta", "bthci_evt.num_command_packets",
        "bthci_evt.pending_in_frame", "bthci_evt.pending_response_delta", "bthci_cmd.page_scan_mode",
        "btl2cap.cmd_length", "btl2cap.conf_param_option", "btl2cap.option_type", "btl2cap.option_length",
        "btl2cap.connect_in", "btl2cap.disconnect_in", "btl2cap.service", "btsdp.len",
        "btsdp.continuation_state", "btsdp.continuation_state.length", "btsdp.continuation_state.value",
        "btsdp.attribute_list_byte_count",
    ]

    /// What tshark shows where it decodes nothing either: vendor parameters and events it does not know.
    static let undecodedByTshark: Set<String> = [
        "Event undecoded", "Unknown command", "Unknown event", "bthci_cmd.parameter", "bthci_evt.ret_params",
    ]

    /// Bits tshark shows one by one of a mask btlens gives whole: compared by presence, not value.
    static let bitPrefixes = [
        "bthci_cmd.evt_mask_", "bthci_cmd.link_policy_", "bthci_cmd.voice.", "btl2cap.flags.", "btl2cap.info_",
        "bthci_cmd.clock_offset_valid",
    ]

    /// The key for a field, the bits of masks included.
    static func key(_ field: String) -> String? {
        if let k = keys[field] { return k }
        // Longest prefix first: the fixed channels' bits before the extended features'.
        let masks = [
            ("bthci_cmd.evt_mask_", "event_mask"), ("bthci_cmd.link_policy_", "link_policy"),
            ("bthci_cmd.voice.", "voice_setting"), ("btl2cap.flags.", "flags"),
            ("btl2cap.info_fixedchans", "fixed_channels"), ("btl2cap.info_", "extended_features"),
        ]
        return masks.first { field.hasPrefix($0.0) }?.1
    }

    private static let hci: [String: String] = [
        "bthci_cmd.opcode": "opcode", "bthci_evt.opcode": "opcode", "bthci_evt.code": "code",
        "bthci_evt.le_meta_subevent": "subevent", "bthci_evt.status": "status", "bthci_cmd.reason": "reason",
        "bthci_evt.reason": "reason", "bthci_cmd.connection_handle": "handle",
        "bthci_evt.connection_handle": "handle|completed", "bthci_evt.num_handles": "completed",
        "bthci_evt.num_compl_packets": "completed", "bthci_cmd.bd_addr": "address",
        "bthci_evt.bd_addr": "address|addresses", "btcommon.cod.class_of_device": "class_of_device",
        "btcommon.eir_ad.advertising_data": "advertising_data", "btcommon.eir_ad.extended_inquiry_response_data": "eir",
        "bthci_cmd.acr.role": "role", "bthci_cmd.allow_role_switch": "allow_role_switch",
        "bthci_cmd.auth_enable": "authentication_enable", "bthci_cmd.clock_offset": "clock_offset",
        "bthci_cmd.clock_offset_valid": "clock_offset",
        "bthci_cmd.device_name": "local_name", "bthci_evt.device_name": "local_name",
        "bthci_cmd.encryption_enable": "encryption", "bthci_evt.encryption_enable": "encryption",
        "bthci_evt.encryption_mode": "encryption", "bthci_cmd.fec_required": "fec_required",
        "bthci_cmd.filter_condition_type": "filter_condition_type", "bthci_cmd.filter_type": "filter_type",
        "bthci_cmd.inq_length": "inquiry_length", "bthci_cmd.inq_mode": "inquiry_mode",
        "bthci_cmd.inq_scan_type": "scan_type", "bthci_cmd.interval": "scan_interval",
        "bthci_cmd.window": "scan_window",
        "bthci_cmd.lap": "lap", "bthci_cmd.num_curr_iac": "num_current_iac", "bthci_cmd.num_iac_lap": "iac_lap",
        "bthci_cmd.num_responses": "num_responses", "bthci_cmd.le_con_interval_min": "interval_min",
        "bthci_cmd.le_con_interval_max": "interval_max", "bthci_cmd.le_con_latency": "latency",
        "bthci_cmd.le_supv_timeout": "timeout", "bthci_cmd.le_min_ce_length": "min_ce_length",
        "bthci_cmd.le_max_ce_length": "max_ce_length", "bthci_cmd.le_event_mask": "event_mask",
        "bthci_cmd.le_filter_duplicates": "filter_duplicates", "bthci_cmd.le_own_address_type": "own_address_type",
        "bthci_cmd.le_rpa_timeout": "rpa_timeout", "bthci_cmd.le_scan_enable": "scan_enable",
        "bthci_cmd.le_scan_filter_policy": "scanning_filter_policy", "bthci_cmd.le_scan_interval": "scan_interval",
        "bthci_cmd.le_scan_type": "scan_type", "bthci_cmd.le_scan_window": "scan_window",
        "bthci_cmd.le_simultaneous_host": "simultaneous_le_host", "bthci_cmd.le_supported_host": "le_supported_host",
        "bthci_cmd.link_key": "link_key", "bthci_cmd.max_data_length_acl": "acl_packet_length",
        "bthci_cmd.max_data_length_sco": "sco_packet_length", "bthci_cmd.max_data_num_acl": "acl_packets",
        "bthci_cmd.max_data_num_sco": "sco_packets", "bthci_evt.max_data_length_acl": "acl_packet_length",
        "bthci_evt.max_data_length_sco": "sco_packet_length", "bthci_evt.max_data_num_acl": "acl_packets",
        "bthci_evt.max_data_num_sco": "sco_packets", "bthci_cmd.max_latency": "max_latency",
        "bthci_cmd.min_local_timeout": "min_local_timeout", "bthci_cmd.min_remote_timeout": "min_remote_timeout",
        "bthci_cmd.packet_type": "packet_type", "bthci_evt.packet_type": "packet_type",
        "bthci_cmd.page_number": "page_number", "bthci_evt.page_number": "page_number",
        "bthci_evt.max_page_number": "max_page_number",
        "bthci_cmd.page_scan_repetition_mode": "page_scan_repetition_mode",
        "bthci_evt.page_scan_repetition_mode": "page_scan_repetition_mode", "bthci_cmd.scan_enable": "scan_enable",
        "bthci_cmd.secure_connection_host_support": "secure_connections_host_support",
        "bthci_cmd.simple_pairing_mode": "simple_pairing_mode", "bthci_cmd.timeout": "page_timeout|timeout",
        "bthci_evt.codecs": "codecs", "bthci_evt.number_of_supported_codecs": "codecs",
        "bthci_evt.vendor_codecs": "vendor_codecs", "bthci_evt.number_of_supported_vendor_codecs": "vendor_codecs",
        "bthci_evt.comp_id": "company_id", "bthci_evt.current_mode": "mode", "bthci_evt.interval": "interval",
        "bthci_evt.data_length": "advertising_data",
        // tshark 4.0 gives HCI Revision the name of HCI Version too: the JSON keeps one of the two.
        "bthci_evt.hci_vers_nr": "hci_version|hci_subversion", "bthci_evt.lmp_vers_nr": "lmp_version",
        "bthci_evt.lmp_sub_vers_nr": "lmp_subversion", "bthci_evt.le_acl_data_pkt_len": "acl_packet_length",
        "bthci_evt.le_total_num_acl_data_pkts": "acl_packets", "bthci_evt.le_advts_event_type": "event_types",
        "bthci_evt.le_peer_address_type": "address_types", "bthci_evt.rssi": "rssi|rssi_values",
        "bthci_evt.le_num_reports": "reports", "bthci_evt.le_con_interval": "interval",
        "bthci_evt.le_con_latency": "latency", "bthci_evt.le_supv_timeout": "timeout",
        "bthci_evt.le_features": "le_features", "bthci_evt.le_random_number": "random_number",
        "bthci_evt.le_states": "le_states", "bthci_evt.le_white_list_size": "list_size",
        "bthci_evt.resolving_list_size": "list_size", "bthci_evt.link_type": "link_type",
        "bthci_evt.lmp_features": "features", "bthci_evt.local_supported_cmds": "supported_commands",
        "bthci_evt.max_slots": "max_slots", "bthci_evt.remote_name": "remote_name",
        "bthci_evt.transmit_power_level": "tx_power",
    ]

    private static let l2cap: [String: String] = [
        "btl2cap.cmd_code": "code", "btl2cap.cmd_ident": "identifier", "btl2cap.psm": "psm",
        "btl2cap.scid": "source_cid|cid", "btl2cap.dcid": "destination_cid|cid", "btl2cap.result": "result",
        "btl2cap.status": "status", "btl2cap.conf_result": "result", "btl2cap.option_mtu": "mtu",
        "btl2cap.retransmissionmode": "mode", "btl2cap.txwindow": "tx_window", "btl2cap.maxtransmit": "max_transmit",
        "btl2cap.retransmittimeout": "retransmission_timeout_ms", "btl2cap.monitortimeout": "monitor_timeout_ms",
        "btl2cap.mps": "mps", "btl2cap.option_flushto": "flush_timeout", "btl2cap.option_fcs": "fcs",
        "btl2cap.info_type": "info_type", "btl2cap.info_result": "result", "btl2cap.min_interval": "interval_min",
        "btl2cap.max_interval": "interval_max", "btl2cap.slave_latency": "latency",
        "btl2cap.timeout_multiplier": "timeout", "btl2cap.move_result": "result",
    ]

    private static let sdp: [String: String] = [
        "btsdp.pdu": "pdu", "btsdp.tid": "transaction", "btsdp.error_code": "error_code",
        "btsdp.ssr.total_count": "total_records", "btsdp.ssr.current_count": "record_handles",
        "btsdp.service_search_pattern": "search_pattern", "btsdp.maximum_service_record_count": "max_records",
        "btsdp.maximum_attribute_byte_count": "max_bytes", "btsdp.attribute_id_list": "attribute_ids",
        "btsdp.service_record_handle_list": "record_handles", "btsdp.service_record_handle": "record_handle",
        "btsdp.attribute_lists": "services", "btsdp.attribute_list": "services",
        // A list continued over several responses: btlens gives its services at the last.
        "btsdp.fragment": "services", "btsdp.reassembled_attribute_list": "services",
    ]
}
