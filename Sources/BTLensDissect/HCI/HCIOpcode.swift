import BTLensCore

/// An HCI command opcode (OGF << 10 | OCF, Core Specification, Vol 4, Part E, §7). Open: unknown
/// values still print. Commands go from the host to the controller; `definitions` says, once per
/// opcode, its name and what btlens reads of it.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var ogf: UInt16 { rawValue >> 10 }
    public var ocf: UInt16 { rawValue & 0x3ff }

    /// `LE Set Scan Enable`, `Vendor (0xfc22)`, `Unknown (0x2099)`.
    public var name: String {
        if let n = definition?.name { return n }
        // OGF 0x3D is not HCI: BTstack's daemon logs its own pseudo-commands there (iOS BTstack pklg files).
        let kind = ogf == 0x3f ? "Vendor" : ogf == 0x3d ? "BTstack daemon" : "Unknown"
        return kind + " (\(Hex.value(rawValue, width: 4)))"
    }

    public var isKnown: Bool { definition != nil }

    /// A vendor's command (OGF 0x3F, §5.4.1), or BTstack's own (OGF 0x3D): its parameters are not
    /// the specification's, and btlens does not read them.
    public var isVendor: Bool { ogf == 0x3f || ogf == 0x3d }

    public var description: String { isKnown ? "\(name) (\(Hex.value(rawValue, width: 4)))" : name }

    /// What btlens reads of the command and of its completion.
    var parameters: HCICommandParameters { definition?.parameters ?? .none }

    struct Definition {
        var name: String
        var parameters: HCICommandParameters
    }

    private var definition: Definition? {
        let ogf = Int(ogf)
        let ocf = Int(ocf)
        return ogf < Self.table.count && ocf < Self.table[ogf].count ? Self.table[ogf][ocf] : nil
    }

    /// Configure Data Path (§7.3, Controller & Baseband): direction, path, and the vendor's configuration bytes.
    private static let dataPath: [HCIParameter] = [
        .u8("data_path_direction"), .u8("data_path_id"), .sized("vendor_specific_config"),
    ]
    /// LE Read/Write RF Path Compensation (§7.8.75, §7.8.76): signed, in 0.1 dB.
    private static let pathCompensation: [HCIParameter] = [
        .i16("rf_tx_path_compensation"), .i16("rf_rx_path_compensation"),
    ]

    /// Every command btlens names (§7): opcode, name, what is read of it. No Operation is named
    /// because controllers send it in Command Complete/Status to report free command slots (§7.7.14).
    private static let definitions: [(UInt16, String, HCICommandParameters)] = [
        (0x0000, "No Operation", .none),
        (
            0x0401, "Inquiry",
            .layout([.hex24("lap"), .duration8("inquiry_length", .inquiryLength), .u8("num_responses")])
        ), (0x0402, "Inquiry Cancel", .none),
        (0x0403, "Periodic Inquiry Mode", .none), (0x0404, "Exit Periodic Inquiry Mode", .none),
        (0x0405, "Create Connection", .createConnection), (0x0406, "Disconnect", .disconnect),
        (0x0408, "Create Connection Cancel", .createConnectionCancel),
        (0x0409, "Accept Connection Request", .layout([.address, .choice("role", ["central", "peripheral"])])),
        (0x040a, "Reject Connection Request", .layout([.address, .reason])),
        (0x040b, "Link Key Request Reply", .layout([.address, .secret("link_key", count: 16)], returns: [.address])),
        (0x040c, "Link Key Request Negative Reply", .layout([.address], returns: [.address])),
        (
            0x040d, "PIN Code Request Reply",
            .layout([.address, .u8("pin_length"), .secret("pin", count: 16)], returns: [.address])
        ),
        (0x040e, "PIN Code Request Negative Reply", .layout([.address], returns: [.address])),
        (0x040f, "Change Connection Packet Type", .layout([.handle, .hex16("packet_type")])),
        (0x0411, "Authentication Requested", .layout([.handle])),
        (0x0413, "Set Connection Encryption", .layout([.handle, .u8("encryption")])),
        (0x0415, "Change Connection Link Key", .layout([.handle])),
        (
            0x0419, "Remote Name Request",
            .layout([.address, .u8("page_scan_repetition_mode"), .reserved(1), .hex16("clock_offset")])
        ),
        (0x041a, "Remote Name Request Cancel", .layout([.address], returns: [.address])),
        (0x041b, "Read Remote Supported Features", .layout([.handle])),
        (0x041c, "Read Remote Extended Features", .layout([.handle, .u8("page_number")])),
        (0x041d, "Read Remote Version Information", .layout([.handle])),
        (0x041f, "Read Clock Offset", .layout([.handle])), (0x0420, "Read LMP Handle", .none),
        (0x0428, "Setup Synchronous Connection", .none), (0x0429, "Accept Synchronous Connection Request", .none),
        (0x042a, "Reject Synchronous Connection Request", .none),
        (
            0x042b, "IO Capability Request Reply",
            .layout(
                [
                    .address,
                    .choice("io_capability", ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput"]),
                    .u8("oob_data"), .hex8("authentication_requirements"),
                ], returns: [.address])
        ),
        (0x042c, "User Confirmation Request Reply", .layout([.address], returns: [.address])),
        (0x042d, "User Confirmation Request Negative Reply", .layout([.address], returns: [.address])),
        (0x042e, "User Passkey Request Reply", .layout([.address, .secret("passkey", count: 4)], returns: [.address])),
        (0x042f, "User Passkey Request Negative Reply", .layout([.address], returns: [.address])),
        (0x0430, "Remote OOB Data Request Reply", .none), (0x0433, "Remote OOB Data Request Negative Reply", .none),
        (0x0434, "IO Capability Request Negative Reply", .layout([.address, .reason], returns: [.address])),
        (0x043d, "Enhanced Setup Synchronous Connection", .none),
        (0x043e, "Enhanced Accept Synchronous Connection Request", .none), (0x0801, "Hold Mode", .none),
        (
            0x0803, "Sniff Mode",
            .layout([
                .handle, .duration16("max_interval", .slot), .duration16("min_interval", .slot),
                .duration16("attempt", .slot), .duration16("timeout", .slot),
            ])
        ), (0x0804, "Exit Sniff Mode", .layout([.handle])), (0x0807, "QoS Setup", .none),
        (
            0x0809, "Role Discovery",
            .layout([.handle], returns: [.handle, .choice("role", ["central", "peripheral"])])
        ), (0x080b, "Switch Role", .layout([.address, .choice("role", ["central", "peripheral"])])),
        (0x080c, "Read Link Policy Settings", .layout([.handle], returns: [.handle, .hex16("link_policy")])),
        (0x080d, "Write Link Policy Settings", .layout([.handle, .hex16("link_policy")], returns: [.handle])),
        (0x080e, "Read Default Link Policy Settings", .layout(returns: [.hex16("link_policy")])),
        (0x080f, "Write Default Link Policy Settings", .layout([.hex16("link_policy")])),
        (
            0x0811, "Sniff Subrating",
            .layout(
                [
                    .handle, .duration16("max_latency", .slot), .duration16("min_remote_timeout", .slot),
                    .duration16("min_local_timeout", .slot),
                ], returns: [.handle])
        ),
        (0x0c01, "Set Event Mask", .layout([.bytes("event_mask", count: 8)])), (0x0c03, "Reset", .none),
        (0x0c05, "Set Event Filter", .layout([.u8("filter_type"), .u8("filter_condition_type")])),
        (0x0c08, "Flush", .none), (0x0c09, "Read PIN Type", .none), (0x0c0a, "Write PIN Type", .none),
        (0x0c0d, "Read Stored Link Key", .none), (0x0c11, "Write Stored Link Key", .none),
        (0x0c12, "Delete Stored Link Key", .none),
        (0x0c13, "Write Local Name", .layout([.text("local_name", count: 248)])),
        (0x0c14, "Read Local Name", .layout(returns: [.text("local_name", count: 248)])),
        (0x0c15, "Read Connection Accept Timeout", .none),
        (0x0c16, "Write Connection Accept Timeout", .none),
        (0x0c17, "Read Page Timeout", .layout(returns: [.duration16("page_timeout", .slot)])),
        (0x0c18, "Write Page Timeout", .layout([.duration16("page_timeout", .slot)])),
        (0x0c19, "Read Scan Enable", .layout(returns: [.hex8("scan_enable")])),
        (0x0c1a, "Write Scan Enable", .layout([.hex8("scan_enable")])),
        (
            0x0c1b, "Read Page Scan Activity",
            .layout(returns: [.duration16("scan_interval", .slot), .duration16("scan_window", .slot)])
        ),
        (
            0x0c1c, "Write Page Scan Activity",
            .layout([.duration16("scan_interval", .slot), .duration16("scan_window", .slot)])
        ),
        (
            0x0c1d, "Read Inquiry Scan Activity",
            .layout(returns: [.duration16("scan_interval", .slot), .duration16("scan_window", .slot)])
        ),
        (
            0x0c1e, "Write Inquiry Scan Activity",
            .layout([.duration16("scan_interval", .slot), .duration16("scan_window", .slot)])
        ), (0x0c1f, "Read Authentication Enable", .none),
        (0x0c20, "Write Authentication Enable", .layout([.u8("authentication_enable")])),
        (0x0c23, "Read Class of Device", .layout(returns: [.hex24("class_of_device")])),
        (0x0c24, "Write Class of Device", .layout([.hex24("class_of_device")])),
        (0x0c25, "Read Voice Setting", .layout(returns: [.hex16("voice_setting")])),
        (0x0c26, "Write Voice Setting", .layout([.hex16("voice_setting")])),
        (0x0c27, "Read Automatic Flush Timeout", .none),
        (0x0c28, "Write Automatic Flush Timeout", .none), (0x0c2d, "Read Transmit Power Level", .none),
        (0x0c2e, "Read Synchronous Flow Control Enable", .none),
        (0x0c2f, "Write Synchronous Flow Control Enable", .none),
        (0x0c31, "Set Controller To Host Flow Control", .none),
        (
            0x0c33, "Host Buffer Size",
            .layout([.u16("acl_packet_length"), .u8("sco_packet_length"), .u16("acl_packets"), .u16("sco_packets")])
        ),
        (0x0c35, "Host Number Of Completed Packets", .none),
        (
            0x0c36, "Read Link Supervision Timeout",
            .layout([.handle], returns: [.handle, .duration16("timeout", .slot)])
        ),
        (
            0x0c37, "Write Link Supervision Timeout",
            .layout([.handle, .duration16("timeout", .slot)], returns: [.handle])
        ), (0x0c38, "Read Number Of Supported IAC", .none),
        (0x0c39, "Read Current IAC LAP", .none),
        (0x0c3a, "Write Current IAC LAP", .layout([.u8("num_current_iac"), .hex24("iac_lap")])),
        (0x0c3f, "Set AFH Host Channel Classification", .none), (0x0c42, "Read Inquiry Scan Type", .none),
        (0x0c43, "Write Inquiry Scan Type", .layout([.choice("scan_type", ["standard", "interlaced"])])),
        (0x0c44, "Read Inquiry Mode", .none),
        (
            0x0c45, "Write Inquiry Mode",
            .layout([.choice("inquiry_mode", ["standard", "with RSSI", "with RSSI or extended"])])
        ), (0x0c46, "Read Page Scan Type", .none),
        (0x0c47, "Write Page Scan Type", .layout([.choice("scan_type", ["standard", "interlaced"])])),
        (0x0c48, "Read AFH Channel Assessment Mode", .none),
        (0x0c49, "Write AFH Channel Assessment Mode", .none),
        (0x0c51, "Read Extended Inquiry Response", .layout(returns: [.u8("fec_required"), .rest("eir")])),
        (0x0c52, "Write Extended Inquiry Response", .layout([.u8("fec_required"), .rest("eir")])),
        (0x0c53, "Refresh Encryption Key", .none),
        (0x0c55, "Read Simple Pairing Mode", .none),
        (0x0c56, "Write Simple Pairing Mode", .layout([.u8("simple_pairing_mode")])),
        (0x0c57, "Read Local OOB Data", .none), (0x0c58, "Read Inquiry Response Transmit Power Level", .none),
        (0x0c59, "Write Inquiry Transmit Power Level", .none), (0x0c5a, "Read Default Erroneous Data Reporting", .none),
        (0x0c5b, "Write Default Erroneous Data Reporting", .none),
        (0x0c63, "Set Event Mask Page 2", .layout([.bytes("event_mask", count: 8)])),
        (0x0c6c, "Read LE Host Support", .none),
        (0x0c6d, "Write LE Host Support", .layout([.u8("le_supported_host"), .u8("simultaneous_le_host")])),
        (0x0c79, "Read Secure Connections Host Support", .none),
        (0x0c7a, "Write Secure Connections Host Support", .layout([.u8("secure_connections_host_support")])),
        (
            0x0c7b, "Read Authenticated Payload Timeout",
            .layout([.handle], returns: [.handle, .duration16("timeout", .tenMilliseconds)])
        ),
        (
            0x0c7c, "Write Authenticated Payload Timeout",
            .layout([.handle, .duration16("timeout", .tenMilliseconds)], returns: [.handle])
        ), (0x0c7d, "Read Local OOB Extended Data", .none),
        (0x0c7e, "Read Extended Page Timeout", .none), (0x0c7f, "Write Extended Page Timeout", .none),
        (0x0c80, "Read Extended Inquiry Length", .none), (0x0c81, "Write Extended Inquiry Length", .none),
        (0x0c82, "Set Ecosystem Base Interval", .none), (0x0c83, "Configure Data Path", .layout(Self.dataPath)),
        (0x0c84, "Set Min Encryption Key Size", .layout([.u8("min_encryption_key_size")])),
        (
            0x1001, "Read Local Version Information",
            .layout(returns: [
                .u8("hci_version"), .hex16("hci_subversion"), .u8("lmp_version"), .company, .hex16("lmp_subversion"),
            ])
        ), (0x1002, "Read Local Supported Commands", .layout(returns: [.bytes("supported_commands", count: 64)])),
        (0x1003, "Read Local Supported Features", .layout(returns: [.bytes("features", count: 8)])),
        (
            0x1004, "Read Local Extended Features",
            .layout(
                [.u8("page_number")],
                returns: [.u8("page_number"), .u8("max_page_number"), .bytes("features", count: 8)])
        ),
        (0x1005, "Read Buffer Size", .readBufferSize), (0x1009, "Read BD_ADDR", .layout(returns: [.address])),
        (0x100a, "Read Data Block Size", .none),
        (
            0x100b, "Read Local Supported Codecs",
            .layout(returns: [.list("codecs", itemSize: 1), .list("vendor_codecs", itemSize: 4)])
        ),
        (0x100d, "Read Local Supported Codecs V2", .none), (0x1401, "Read Failed Contact Counter", .none),
        (0x1402, "Reset Failed Contact Counter", .none),
        (0x1403, "Read Link Quality", .layout([.handle], returns: [.handle, .u8("link_quality")])),
        (0x1405, "Read RSSI", .layout([.handle], returns: [.handle, .i8("rssi")])),
        (0x1406, "Read AFH Channel Map", .none), (0x1407, "Read Clock", .none),
        (0x1408, "Read Encryption Key Size", .layout([.handle], returns: [.handle, .u8("key_size")])),
        (0x2001, "LE Set Event Mask", .layout([.bytes("event_mask", count: 8)])),
        (0x2002, "LE Read Buffer Size", .leReadBufferSize),
        (0x2003, "LE Read Local Supported Features", .layout(returns: [.bytes("le_features", count: 8)])),
        (0x2005, "LE Set Random Address", .layout([.address])),
        (
            0x2006, "LE Set Advertising Parameters",
            .layout([
                .duration16("advertising_interval_min", .slot), .duration16("advertising_interval_max", .slot),
                .u8("advertising_type"), .u8("own_address_type"), .u8("peer_address_type"), .address,
                .hex8("advertising_channel_map"), .u8("advertising_filter_policy"),
            ])
        ),
        (0x2007, "LE Read Advertising Physical Channel Tx Power", .layout(returns: [.i8("tx_power")])),
        (0x2008, "LE Set Advertising Data", .layout([.sized("advertising_data")])),
        (0x2009, "LE Set Scan Response Data", .layout([.sized("scan_response_data")])),
        (0x200a, "LE Set Advertising Enable", .layout([.u8("advertising_enable")])),
        (
            0x200b, "LE Set Scan Parameters",
            .layout([
                .choice("scan_type", ["passive", "active"]), .duration16("scan_interval", .slot),
                .duration16("scan_window", .slot), .u8("own_address_type"), .u8("scanning_filter_policy"),
            ])
        ), (0x200c, "LE Set Scan Enable", .layout([.u8("scan_enable"), .u8("filter_duplicates")])),
        (0x200d, "LE Create Connection", .leCreateConnection),
        (0x200e, "LE Create Connection Cancel", .createConnectionCancel),
        (0x200f, "LE Read Filter Accept List Size", .layout(returns: [.u8("list_size")])),
        (0x2010, "LE Clear Filter Accept List", .none),
        (0x2011, "LE Add Device To Filter Accept List", .layout([.u8("address_type"), .address])),
        (0x2012, "LE Remove Device From Filter Accept List", .layout([.u8("address_type"), .address])),
        (
            0x2013, "LE Connection Update",
            .layout([
                .handle, .duration16("interval_min", .connectionInterval),
                .duration16("interval_max", .connectionInterval), .u16("latency"),
                .duration16("timeout", .tenMilliseconds), .duration16("min_ce_length", .slot),
                .duration16("max_ce_length", .slot),
            ])
        ),
        (0x2014, "LE Set Host Channel Classification", .none), (0x2015, "LE Read Channel Map", .none),
        (0x2016, "LE Read Remote Features", .layout([.handle])), (0x2017, "LE Encrypt", .none),
        (0x2018, "LE Rand", .layout(returns: [.secret("random_number", count: 8)])),
        (
            0x2019, "LE Enable Encryption",
            .layout([.handle, .secret("random_number", count: 8), .hex16("ediv"), .secret("ltk", count: 16)])
        ),
        (0x201a, "LE Long Term Key Request Reply", .layout([.handle, .secret("ltk", count: 16)], returns: [.handle])),
        (0x201b, "LE Long Term Key Request Negative Reply", .layout([.handle], returns: [.handle])),
        (0x201c, "LE Read Supported States", .layout(returns: [.bytes("le_states", count: 8)])),
        (0x201d, "LE Receiver Test", .none), (0x201e, "LE Transmitter Test", .none), (0x201f, "LE Test End", .none),
        (
            0x2020, "LE Remote Connection Parameter Request Reply",
            .layout(
                [
                    .handle, .duration16("interval_min", .connectionInterval),
                    .duration16("interval_max", .connectionInterval), .u16("latency"),
                    .duration16("timeout", .tenMilliseconds), .duration16("min_ce_length", .slot),
                    .duration16("max_ce_length", .slot),
                ], returns: [.handle])
        ),
        (
            0x2021, "LE Remote Connection Parameter Request Negative Reply",
            .layout([.handle, .reason], returns: [.handle])
        ), (0x2022, "LE Set Data Length", .layout([.handle, .u16("tx_octets"), .u16("tx_time")], returns: [.handle])),
        (0x2023, "LE Read Suggested Default Data Length", .layout(returns: [.u16("tx_octets"), .u16("tx_time")])),
        (0x2024, "LE Write Suggested Default Data Length", .layout([.u16("tx_octets"), .u16("tx_time")])),
        (0x2025, "LE Read Local P-256 Public Key", .none),
        (0x2026, "LE Generate DHKey", .none),
        (
            0x2027, "LE Add Device To Resolving List",
            .layout([.u8("address_type"), .address, .secret("peer_irk", count: 16), .secret("local_irk", count: 16)])
        ),
        (0x2028, "LE Remove Device From Resolving List", .layout([.u8("address_type"), .address])),
        (0x2029, "LE Clear Resolving List", .none),
        (0x202a, "LE Read Resolving List Size", .layout(returns: [.u8("list_size")])),
        (0x202b, "LE Read Peer Resolvable Address", .none),
        (0x202c, "LE Read Local Resolvable Address", .none),
        (0x202d, "LE Set Address Resolution Enable", .layout([.u8("address_resolution_enable")])),
        (0x202e, "LE Set Resolvable Private Address Timeout", .layout([.u16("rpa_timeout")])),
        (
            0x202f, "LE Read Maximum Data Length",
            .layout(returns: [.u16("max_tx_octets"), .u16("max_tx_time"), .u16("max_rx_octets"), .u16("max_rx_time")])
        ),
        (0x2030, "LE Read PHY", .layout([.handle], returns: [.handle, .u8("tx_phy"), .u8("rx_phy")])),
        (0x2031, "LE Set Default PHY", .layout([.hex8("all_phys"), .hex8("tx_phys"), .hex8("rx_phys")])),
        (
            0x2032, "LE Set PHY",
            .layout([.handle, .hex8("all_phys"), .hex8("tx_phys"), .hex8("rx_phys"), .u16("phy_options")])
        ),
        (0x2033, "LE Receiver Test V2", .none), (0x2034, "LE Transmitter Test V2", .none),
        (0x2035, "LE Set Advertising Set Random Address", .none),
        (0x2036, "LE Set Extended Advertising Parameters", .none), (0x2037, "LE Set Extended Advertising Data", .none),
        (0x2038, "LE Set Extended Scan Response Data", .none),
        (0x2039, "LE Set Extended Advertising Enable", .layout([.u8("advertising_enable")])),
        (0x203a, "LE Read Maximum Advertising Data Length", .none),
        (0x203b, "LE Read Number of Supported Advertising Sets", .none), (0x203c, "LE Remove Advertising Set", .none),
        (0x203d, "LE Clear Advertising Sets", .none), (0x203e, "LE Set Periodic Advertising Parameters", .none),
        (0x203f, "LE Set Periodic Advertising Data", .none), (0x2040, "LE Set Periodic Advertising Enable", .none),
        (0x2041, "LE Set Extended Scan Parameters", .none),
        (
            0x2042, "LE Set Extended Scan Enable",
            .layout([
                .u8("scan_enable"), .u8("filter_duplicates"), .duration16("duration", .tenMilliseconds), .u16("period"),
            ])
        ),
        (0x2043, "LE Extended Create Connection", .leExtendedCreateConnection),
        (0x2044, "LE Periodic Advertising Create Sync", .none),
        (0x2045, "LE Periodic Advertising Create Sync Cancel", .none),
        (0x2046, "LE Periodic Advertising Terminate Sync", .none),
        (0x2047, "LE Add Device To Periodic Advertiser List", .none),
        (0x2048, "LE Remove Device From Periodic Advertiser List", .none),
        (0x2049, "LE Clear Periodic Advertiser List", .none),
        (0x204a, "LE Read Periodic Advertiser List Size", .layout(returns: [.u8("list_size")])),
        (0x204b, "LE Read Transmit Power", .layout(returns: [.i8("min_tx_power"), .i8("max_tx_power")])),
        (0x204c, "LE Read RF Path Compensation", .layout(returns: Self.pathCompensation)),
        (0x204d, "LE Write RF Path Compensation", .layout(Self.pathCompensation)),
        (0x204e, "LE Set Privacy Mode", .layout([.u8("address_type"), .address, .u8("privacy_mode")])),
        (0x204f, "LE Receiver Test V3", .none), (0x2050, "LE Transmitter Test V3", .none),
        (0x2051, "LE Set Connectionless CTE Transmit Parameters", .none),
        (0x2052, "LE Set Connectionless CTE Transmit Enable", .none),
        (0x2053, "LE Set Connectionless IQ Sampling Enable", .none),
        (0x2054, "LE Set Connection CTE Receive Parameters", .none),
        (0x2055, "LE Set Connection CTE Transmit Parameters", .none),
        (0x2056, "LE Connection CTE Request Enable", .none), (0x2057, "LE Connection CTE Response Enable", .none),
        (0x2058, "LE Read Antenna Information", .none),
        (0x2059, "LE Set Periodic Advertising Receive Enable", .none),
        (0x205a, "LE Periodic Advertising Sync Transfer", .none),
        (0x205b, "LE Periodic Advertising Set Info Transfer", .none),
        (0x205c, "LE Set Periodic Advertising Sync Transfer Parameters", .none),
        (0x205d, "LE Set Default Periodic Advertising Sync Transfer Parameters", .none),
        (0x205e, "LE Generate DHKey V2", .none), (0x205f, "LE Modify Sleep Clock Accuracy", .none),
        (0x2060, "LE Read Buffer Size V2", .leReadBufferSize), (0x2061, "LE Read ISO TX Sync", .none),
        (0x2062, "LE Set CIG Parameters", .none), (0x2063, "LE Set CIG Parameters Test", .none),
        (0x2064, "LE Create CIS", .none), (0x2065, "LE Remove CIG", .none), (0x2066, "LE Accept CIS Request", .none),
        (0x2067, "LE Reject CIS Request", .none), (0x2068, "LE Create BIG", .none),
        (0x2069, "LE Create BIG Test", .none), (0x206a, "LE Terminate BIG", .none),
        (0x206b, "LE BIG Create Sync", .none), (0x206c, "LE BIG Terminate Sync", .none),
        (0x206d, "LE Request Peer SCA", .none), (0x206e, "LE Setup ISO Data Path", .none),
        (0x206f, "LE Remove ISO Data Path", .none), (0x2070, "LE ISO Transmit Test", .none),
        (0x2071, "LE ISO Receive Test", .none), (0x2072, "LE ISO Read Test Counters", .none),
        (0x2073, "LE ISO Test End", .none), (0x2074, "LE Set Host Feature", .none),
        (0x2075, "LE Read ISO Link Quality", .none), (0x2076, "LE Enhanced Read Transmit Power Level", .none),
        (0x2077, "LE Read Remote Transmit Power Level", .none),
        (0x2078, "LE Set Path Loss Reporting Parameters", .none),
        (0x2079, "LE Set Path Loss Reporting Enable", .none),
        (0x207a, "LE Set Transmit Power Reporting Enable", .none), (0x207b, "LE Transmitter Test V4", .none),
        (0x207c, "LE Set Data Related Address Changes", .none), (0x207d, "LE Set Default Subrate", .none),
        (0x207e, "LE Subrate Request", .none), (0x207f, "LE Set Extended Advertising Parameters V2", .none),
        (0x2082, "LE Set Periodic Advertising Subevent Data", .none),
        (0x2083, "LE Set Periodic Advertising Response Data", .none),
        (0x2084, "LE Set Periodic Sync Subevent", .none),
        (0x2085, "LE Extended Create Connection V2", .none),
        (0x2086, "LE Set Periodic Advertising Parameters V2", .none),
        // Vendor commands whose names are public (docs/protocols/vendor-hci.md); their parameters
        // are the vendor's, not read.
        (0xfc01, "Broadcom Write BD_ADDR", .none), (0xfc18, "Broadcom Update UART Baud Rate", .none),
        (0xfc1c, "Broadcom Write SCO PCM Int Param", .none), (0xfc1e, "Broadcom Write PCM Data Format Param", .none),
        (0xfc27, "Broadcom Write Sleep Mode", .none), (0xfc2e, "Broadcom Download Minidriver", .none),
        (0xfc4c, "Broadcom Write RAM", .none), (0xfc4e, "Broadcom Launch RAM", .none),
        (0xfc57, "Broadcom Set ACL Priority", .none), (0xfc6d, "Broadcom Write I2S PCM Interface Param", .none),
        (0xfc79, "Broadcom Read Verbose Config Version Info", .none),
        (0xfd53, "Android LE Get Vendor Capabilities", .none), (0xfd54, "Android LE Multi Advertising", .none),
        (0xfd56, "Android LE Batch Scan", .none), (0xfd57, "Android LE Advertising Packet Content Filter", .none),
        (0xfd58, "Android LE Track Advertiser", .none), (0xfd59, "Android Controller Energy Info", .none),
        (0xfd5a, "Android LE Extended Scan Parameters", .none), (0xfd5b, "Android Controller Debug Info", .none),
    ]

    /// `definitions` by OGF, then OCF: a lookup is two array indices.
    private static let table: [[Definition?]] = {
        var table = [[Definition?]](repeating: [], count: 64)
        for (opcode, name, parameters) in definitions {
            let ogf = Int(opcode >> 10)
            let ocf = Int(opcode & 0x3ff)
            if table[ogf].count <= ocf {
                table[ogf] += [Definition?](repeating: nil, count: ocf + 1 - table[ogf].count)
            }
            table[ogf][ocf] = Definition(name: name, parameters: parameters)
        }
        return table
    }()
}

/// What btlens reads of a command (the decoder column of `HCIOpcode.definitions`).
enum HCICommandParameters: Equatable {
    case createConnection, disconnect, leCreateConnection, leExtendedCreateConnection
    /// Create Connection Cancel and LE Create Connection Cancel: the attempt they cancel ends.
    case createConnectionCancel
    /// Read Buffer Size: its completion gives the controller's ACL buffers.
    case readBufferSize
    /// LE Read Buffer Size (V1 and V2): its completion gives the LE ACL buffers.
    case leReadBufferSize
    /// The command's parameters and its completion's return parameters after the status (§7.1-§7.8).
    case layout(_ command: [HCIParameter] = [], returns: [HCIParameter] = [])
    case none

    /// What a successful Command Complete returns after its status.
    var returns: [HCIParameter] {
        switch self {
        case .layout(_, let returns): returns
        case .readBufferSize:
            [.u16("acl_packet_length"), .u8("sco_packet_length"), .u16("acl_packets"), .u16("sco_packets")]
        case .leReadBufferSize: [.u16("acl_packet_length"), .u8("acl_packets")]
        default: []
        }
    }
}
