import BTLensCore

/// An HCI event code (Core Specification, Vol 4, Part E, §7.7). Open: unknown values still print.
/// Events come from the controller; `definitions` says, once per code, its name and how it is read.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String {
        Self.table[Int(rawValue)]?.name ?? "Unknown (\(Hex.value(rawValue, width: 2)))"
    }

    public var isKnown: Bool { Self.table[Int(rawValue)] != nil }

    /// An event whose parameters nothing reads: a vendor's (0xFF, §5.4.4) or a code not defined.
    public var isVendor: Bool { rawValue == 0xff || !isKnown }

    /// How the parameters are read; nil for a code not defined.
    var parameters: HCIEventParameters? { Self.table[Int(rawValue)]?.parameters }

    struct Definition {
        var name: String
        var parameters: HCIEventParameters
    }

    /// Every event btlens names: code, name, how its parameters are read.
    private static let definitions: [(UInt8, Definition)] = [
        (0x01, .init(name: "Inquiry Complete", parameters: .layout([.status]))),
        (0x02, .init(name: "Inquiry Result", parameters: .none)),
        (0x03, .init(name: "Connection Complete", parameters: .connectionComplete)),
        (0x04, .init(name: "Connection Request", parameters: .connectionRequest)),
        (0x05, .init(name: "Disconnection Complete", parameters: .disconnectionComplete)),
        (0x06, .init(name: "Authentication Complete", parameters: .layout([.status, .handle]))),
        (
            0x07,
            .init(
                name: "Remote Name Request Complete",
                parameters: .layout([.status, .address, .text("remote_name", count: 248)]))
        ),
        (0x08, .init(name: "Encryption Change", parameters: .encryptionChange)),
        (0x09, .init(name: "Change Connection Link Key Complete", parameters: .layout([.status, .handle]))),
        (0x0a, .init(name: "Link Key Type Changed", parameters: .none)),
        (
            0x0b,
            .init(
                name: "Read Remote Supported Features Complete",
                parameters: .layout([.status, .handle, .bytes("features", count: 8)]))
        ),
        (
            0x0c,
            .init(
                name: "Read Remote Version Information Complete",
                parameters: .layout([.status, .handle, .u8("lmp_version"), .company, .hex16("lmp_subversion")]))
        ),
        (0x0d, .init(name: "QoS Setup Complete", parameters: .status)),
        (0x0e, .init(name: "Command Complete", parameters: .commandComplete)),
        (0x0f, .init(name: "Command Status", parameters: .commandStatus)),
        (0x10, .init(name: "Hardware Error", parameters: .layout([.hex8("hardware_code")]))),
        (0x11, .init(name: "Flush Occurred", parameters: .none)),
        (0x12, .init(name: "Role Change", parameters: .roleChange)),
        (0x13, .init(name: "Number Of Completed Packets", parameters: .numberOfCompletedPackets)),
        (
            0x14,
            .init(
                name: "Mode Change",
                parameters: .layout([
                    .status, .handle, .choice("mode", ["active", "hold", "sniff", "park"]),
                    .duration16("interval", .slot),
                ]))
        ),
        (0x15, .init(name: "Return Link Keys", parameters: .none)),
        (0x16, .init(name: "PIN Code Request", parameters: .layout([.address]))),
        (0x17, .init(name: "Link Key Request", parameters: .layout([.address]))),
        (
            0x18,
            .init(
                name: "Link Key Notification",
                parameters: .layout([.address, .secret("link_key", count: 16), .u8("key_type")]))
        ),
        (0x19, .init(name: "Loopback Command", parameters: .none)),
        (0x1a, .init(name: "Data Buffer Overflow", parameters: .none)),
        (0x1b, .init(name: "Max Slots Change", parameters: .layout([.handle, .u8("max_slots")]))),
        (
            0x1c,
            .init(name: "Read Clock Offset Complete", parameters: .layout([.status, .handle, .hex16("clock_offset")]))
        ),
        (
            0x1d,
            .init(
                name: "Connection Packet Type Changed", parameters: .layout([.status, .handle, .hex16("packet_type")]))
        ),
        (0x1e, .init(name: "QoS Violation", parameters: .none)),
        (
            0x20,
            .init(
                name: "Page Scan Repetition Mode Change",
                parameters: .layout([.address, .u8("page_scan_repetition_mode")]))
        ),
        (0x21, .init(name: "Flow Specification Complete", parameters: .none)),
        (0x22, .init(name: "Inquiry Result with RSSI", parameters: .none)),
        (
            0x23,
            .init(
                name: "Read Remote Extended Features Complete",
                parameters: .layout([
                    .status, .handle, .u8("page_number"), .u8("max_page_number"), .bytes("features", count: 8),
                ]))
        ),
        (0x2c, .init(name: "Synchronous Connection Complete", parameters: .synchronousConnectionComplete)),
        (0x2d, .init(name: "Synchronous Connection Changed", parameters: .status)),
        (
            0x2e,
            .init(
                name: "Sniff Subrating",
                parameters: .layout([
                    .status, .handle, .duration16("max_tx_latency", .slot), .duration16("max_rx_latency", .slot),
                    .duration16("min_remote_timeout", .slot), .duration16("min_local_timeout", .slot),
                ]))
        ),
        (0x2f, .init(name: "Extended Inquiry Result", parameters: .none)),
        (0x30, .init(name: "Encryption Key Refresh Complete", parameters: .encryptionKeyRefreshComplete)),
        (0x31, .init(name: "IO Capability Request", parameters: .layout([.address]))),
        (
            0x32,
            .init(
                name: "IO Capability Response",
                parameters: .layout([
                    .address,
                    .choice("io_capability", ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput"]),
                    .u8("oob_data"), .hex8("authentication_requirements"),
                ]))
        ),
        (0x33, .init(name: "User Confirmation Request", parameters: .layout([.address, .u32("numeric_value")]))),
        (0x34, .init(name: "User Passkey Request", parameters: .layout([.address]))),
        (0x35, .init(name: "Remote OOB Data Request", parameters: .layout([.address]))),
        (0x36, .init(name: "Simple Pairing Complete", parameters: .layout([.status, .address]))),
        (
            0x38,
            .init(
                name: "Link Supervision Timeout Changed", parameters: .layout([.handle, .duration16("timeout", .slot)]))
        ),
        (0x39, .init(name: "Enhanced Flush Complete", parameters: .none)),
        (
            0x3b,
            .init(name: "User Passkey Notification", parameters: .layout([.address, .secret("passkey", count: 4)]))
        ),
        (0x3c, .init(name: "Keypress Notification", parameters: .none)),
        (
            0x3d,
            .init(
                name: "Remote Host Supported Features Notification",
                parameters: .layout([.address, .bytes("features", count: 8)]))
        ),
        (0x3e, .init(name: "LE Meta", parameters: .leMeta)),
        (0x48, .init(name: "Number Of Completed Data Blocks", parameters: .none)),
        (0x57, .init(name: "Authenticated Payload Timeout Expired", parameters: .layout([.handle]))),
        (0x59, .init(name: "Encryption Change V2", parameters: .encryptionChange)),
        // BTstack's daemon logs events of its own in codes the specification leaves unused (BTstack's
        // hci_dump on iOS; docs/protocols/vendor-hci.md).
        // Its length byte says 0 and the state follows it, outside the event: not read.
        (0x60, .init(name: "BTstack State", parameters: .none)),
        (0x61, .init(name: "BTstack Connections Changed", parameters: .layout([.u8("connections")]))),
        (0x62, .init(name: "BTstack Power On Failed", parameters: .none)),
        (
            0x70,
            .init(
                name: "BTstack L2CAP Channel Opened",
                parameters: .layout([
                    .status, .address, .handle, .hex16("psm"), .hex16("local_cid"), .hex16("remote_cid"),
                ]))
        ),
        (0x71, .init(name: "BTstack L2CAP Channel Closed", parameters: .layout([.hex16("local_cid")]))),
        (
            0x72,
            .init(
                name: "BTstack L2CAP Incoming Connection",
                parameters: .layout([.address, .handle, .hex16("psm"), .hex16("local_cid"), .hex16("remote_cid")]))
        ),
        (0x73, .init(name: "BTstack L2CAP Timeout Check", parameters: .layout([.handle]))),
        (0x74, .init(name: "BTstack L2CAP Credits", parameters: .layout([.hex16("local_cid"), .u8("credits")]))),
        (0xff, .init(name: "Vendor", parameters: .none)),
    ]

    /// `definitions` by code: a lookup per event is an array index.
    static let table: [Definition?] = {
        var table = [Definition?](repeating: nil, count: 256)
        for (code, definition) in definitions { table[Int(code)] = definition }
        return table
    }()
}

/// The subevent of an LE Meta event (Core Specification, Vol 4, Part E, §7.7.65).
public struct LESubeventCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.table[Int(rawValue)]?.name ?? "LE Unknown (\(Hex.value(rawValue, width: 2)))" }
    public var isKnown: Bool { Self.table[Int(rawValue)] != nil }

    /// How the parameters are read; nil for a subevent not defined.
    var parameters: LESubeventParameters? { Self.table[Int(rawValue)]?.parameters }

    struct Definition {
        var name: String
        var parameters: LESubeventParameters
    }

    /// Every subevent btlens names: code, name, how its parameters are read.
    private static let definitions: [(UInt8, Definition)] = [
        (0x01, .init(name: "LE Connection Complete", parameters: .connectionComplete)),
        (0x02, .init(name: "LE Advertising Report", parameters: .advertisingReport)),
        (0x03, .init(name: "LE Connection Update Complete", parameters: .connectionUpdateComplete)),
        (
            0x04,
            .init(
                name: "LE Read Remote Features Complete",
                parameters: .layout([.status, .handle, .bytes("le_features", count: 8)]))
        ),
        (
            0x05,
            .init(
                name: "LE Long Term Key Request",
                parameters: .layout([.handle, .secret("random_number", count: 8), .hex16("ediv")]))
        ),
        (
            0x06,
            .init(
                name: "LE Remote Connection Parameter Request",
                parameters: .layout([
                    .handle, .duration16("interval_min", .connectionInterval),
                    .duration16("interval_max", .connectionInterval), .u16("latency"),
                    .duration16("timeout", .tenMilliseconds),
                ]))
        ),
        (0x07, .init(name: "LE Data Length Change", parameters: .dataLengthChange)),
        (
            0x08,
            .init(
                name: "LE Read Local P-256 Public Key Complete",
                parameters: .layout([.status, .secret("public_key", count: 64)]))
        ),
        (0x09, .init(name: "LE Generate DHKey Complete", parameters: .layout([.status, .secret("dhkey", count: 32)]))),
        (0x0a, .init(name: "LE Enhanced Connection Complete", parameters: .enhancedConnectionComplete)),
        (0x0b, .init(name: "LE Directed Advertising Report", parameters: .none)),
        (0x0c, .init(name: "LE PHY Update Complete", parameters: .phyUpdateComplete)),
        (0x0d, .init(name: "LE Extended Advertising Report", parameters: .extendedAdvertisingReport)),
        (0x0e, .init(name: "LE Periodic Advertising Sync Established", parameters: .none)),
        (0x0f, .init(name: "LE Periodic Advertising Report", parameters: .none)),
        (0x10, .init(name: "LE Periodic Advertising Sync Lost", parameters: .none)),
        (0x11, .init(name: "LE Scan Timeout", parameters: .none)),
        (
            0x12,
            .init(
                name: "LE Advertising Set Terminated",
                parameters: .layout([.status, .u8("advertising_handle"), .handle, .u8("completed_events")]))
        ),
        (0x13, .init(name: "LE Scan Request Received", parameters: .none)),
        (
            0x14,
            .init(
                name: "LE Channel Selection Algorithm",
                parameters: .layout([.handle, .u8("channel_selection_algorithm")]))
        ),
        (0x19, .init(name: "LE CIS Established", parameters: .none)),
        (0x1a, .init(name: "LE CIS Request", parameters: .none)),
        (0x1b, .init(name: "LE Create BIG Complete", parameters: .none)),
        (0x1c, .init(name: "LE Terminate BIG Complete", parameters: .none)),
        (0x29, .init(name: "LE Enhanced Connection Complete V2", parameters: .enhancedConnectionComplete)),
    ]

    /// `definitions` by code: a lookup per event is an array index.
    static let table: [Definition?] = {
        var table = [Definition?](repeating: nil, count: 256)
        for (code, definition) in definitions { table[Int(code)] = definition }
        return table
    }()
}
