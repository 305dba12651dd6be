extension ParameterNames {
    /// The parameters of `hci.command` and `hci.event` events (docs/jsonl.md): the specification's
    /// parameter names in lower case, a time's count beside its `_ms`; and those of L2CAP signalling
    /// and SDP that no other event has.
    static let hci: Set<String> = [
        // Connections, encryption and pairing
        "allow_role_switch", "authentication_requirements", "class_of_device", "clock_offset", "key_size",
        "min_encryption_key_size",
        "key_type", "link_key", "local_irk", "numeric_value", "passkey", "peer_irk", "pin", "pin_length",
        "page_scan_repetition_mode", "random_number", "remote_name", "mode", "max_slots", "link_quality", "rssi",
        // Versions and features
        "company", "hci_version", "hci_subversion", "lmp_version", "lmp_subversion", "max_page_number",
        "page_number", "le_features", "le_states", "supported_commands", "vendor_codecs",
        // Buffers, masks and the controller's setup
        "acl_packet_length", "acl_packets", "sco_packet_length", "sco_packets", "event_mask", "list_size",
        "local_name", "eir", "fec_required", "voice_setting", "authentication_enable", "simple_pairing_mode",
        "le_supported_host", "simultaneous_le_host", "secure_connections_host_support", "hardware_code",
        "address_resolution_enable", "rpa_timeout", "privacy_mode", "filter_type", "filter_condition_type",
        // Link policy and timings
        "link_policy", "interval", "interval_min_ms", "interval_max_ms", "timeout", "max_interval",
        "max_interval_ms", "min_interval", "min_interval_ms", "attempt", "attempt_ms", "max_latency",
        "max_latency_ms", "min_remote_timeout", "min_remote_timeout_ms", "min_local_timeout",
        "min_local_timeout_ms", "max_tx_latency", "max_tx_latency_ms", "max_rx_latency", "max_rx_latency_ms",
        "page_timeout", "page_timeout_ms", "min_ce_length", "min_ce_length_ms", "max_ce_length",
        "max_ce_length_ms", "dhkey",
        // Inquiry and scanning
        "lap", "iac_lap", "num_current_iac", "inquiry_length", "inquiry_length_ms", "num_responses",
        "inquiry_mode", "scan_enable", "scan_type", "scan_interval", "scan_interval_ms", "scan_window",
        "scan_window_ms", "own_address_type", "scanning_filter_policy", "initiator_filter_policy", "filter_duplicates",
        "duration", "period",
        // Advertising
        "advertising_interval_min", "advertising_interval_min_ms", "advertising_interval_max",
        "advertising_interval_max_ms", "advertising_type", "peer_address_type", "advertising_channel_map",
        "advertising_filter_policy", "advertising_data", "scan_response_data", "advertising_enable",
        "advertising_handle", "completed_events", "address_types", "event_types", "rssi_values", "tx_power",
        "min_tx_power", "max_tx_power",
        "rf_tx_path_compensation", "rf_rx_path_compensation", "data_path_direction", "data_path_id",
        "vendor_specific_config",
        "channel_selection_algorithm",
        // PHY and data length
        "all_phys", "tx_phys", "rx_phys", "phy_options", "tx_octets", "tx_time", "max_tx_time", "max_rx_time",
        // BTstack's daemon events
        "connections", "local_cid", "remote_cid",
        // L2CAP signalling: configuration options, information, results
        "result_name", "flush_timeout", "tx_window", "max_transmit", "retransmission_timeout_ms",
        "monitor_timeout_ms", "fcs", "extended_window_size", "option", "info_type", "info_type_name",
        "extended_features", "fixed_channels",
        // SDP requests and search responses
        "search_pattern", "max_records", "max_bytes", "attribute_ids", "record_handle", "record_handles",
        "total_records",
    ]
}
