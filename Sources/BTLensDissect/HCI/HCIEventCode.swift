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

    /// How the parameters are read; nil for a code not defined.
    var parameters: HCIEventParameters? { Self.table[Int(rawValue)]?.parameters }

    struct Definition {
        var name: String
        var parameters: HCIEventParameters
    }

    /// Every event btlens names: code, name, how its parameters are read.
    private static let definitions: [(UInt8, Definition)] = [
        (0x01, .init(name: "Inquiry Complete", parameters: .status)),
        (0x02, .init(name: "Inquiry Result", parameters: .none)),
        (0x03, .init(name: "Connection Complete", parameters: .connectionComplete)),
        (0x04, .init(name: "Connection Request", parameters: .connectionRequest)),
        (0x05, .init(name: "Disconnection Complete", parameters: .disconnectionComplete)),
        (0x06, .init(name: "Authentication Complete", parameters: .status)),
        (0x07, .init(name: "Remote Name Request Complete", parameters: .remoteName)),
        (0x08, .init(name: "Encryption Change", parameters: .encryptionChange)),
        (0x09, .init(name: "Change Connection Link Key Complete", parameters: .status)),
        (0x0a, .init(name: "Link Key Type Changed", parameters: .none)),
        (0x0b, .init(name: "Read Remote Supported Features Complete", parameters: .status)),
        (0x0c, .init(name: "Read Remote Version Information Complete", parameters: .status)),
        (0x0d, .init(name: "QoS Setup Complete", parameters: .status)),
        (0x0e, .init(name: "Command Complete", parameters: .commandComplete)),
        (0x0f, .init(name: "Command Status", parameters: .commandStatus)),
        (0x10, .init(name: "Hardware Error", parameters: .none)),
        (0x11, .init(name: "Flush Occurred", parameters: .none)),
        (0x12, .init(name: "Role Change", parameters: .roleChange)),
        (0x13, .init(name: "Number Of Completed Packets", parameters: .numberOfCompletedPackets)),
        (0x14, .init(name: "Mode Change", parameters: .none)),
        (0x15, .init(name: "Return Link Keys", parameters: .none)),
        (0x16, .init(name: "PIN Code Request", parameters: .none)),
        (0x17, .init(name: "Link Key Request", parameters: .none)),
        (0x18, .init(name: "Link Key Notification", parameters: .none)),
        (0x19, .init(name: "Loopback Command", parameters: .none)),
        (0x1a, .init(name: "Data Buffer Overflow", parameters: .none)),
        (0x1b, .init(name: "Max Slots Change", parameters: .none)),
        (0x1c, .init(name: "Read Clock Offset Complete", parameters: .status)),
        (0x1d, .init(name: "Connection Packet Type Changed", parameters: .status)),
        (0x1e, .init(name: "QoS Violation", parameters: .none)),
        (0x20, .init(name: "Page Scan Repetition Mode Change", parameters: .none)),
        (0x21, .init(name: "Flow Specification Complete", parameters: .none)),
        (0x22, .init(name: "Inquiry Result with RSSI", parameters: .none)),
        (0x23, .init(name: "Read Remote Extended Features Complete", parameters: .status)),
        (0x2c, .init(name: "Synchronous Connection Complete", parameters: .synchronousConnectionComplete)),
        (0x2d, .init(name: "Synchronous Connection Changed", parameters: .status)),
        (0x2e, .init(name: "Sniff Subrating", parameters: .none)),
        (0x2f, .init(name: "Extended Inquiry Result", parameters: .none)),
        (0x30, .init(name: "Encryption Key Refresh Complete", parameters: .encryptionKeyRefreshComplete)),
        (0x31, .init(name: "IO Capability Request", parameters: .none)),
        (0x32, .init(name: "IO Capability Response", parameters: .none)),
        (0x33, .init(name: "User Confirmation Request", parameters: .none)),
        (0x34, .init(name: "User Passkey Request", parameters: .none)),
        (0x35, .init(name: "Remote OOB Data Request", parameters: .none)),
        (0x36, .init(name: "Simple Pairing Complete", parameters: .status)),
        (0x38, .init(name: "Link Supervision Timeout Changed", parameters: .none)),
        (0x39, .init(name: "Enhanced Flush Complete", parameters: .none)),
        (0x3b, .init(name: "User Passkey Notification", parameters: .none)),
        (0x3c, .init(name: "Keypress Notification", parameters: .none)),
        (0x3d, .init(name: "Remote Host Supported Features Notification", parameters: .none)),
        (0x3e, .init(name: "LE Meta", parameters: .leMeta)),
        (0x48, .init(name: "Number Of Completed Data Blocks", parameters: .none)),
        (0x57, .init(name: "Authenticated Payload Timeout Expired", parameters: .none)),
        (0x59, .init(name: "Encryption Change V2", parameters: .encryptionChange)),
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
        (0x04, .init(name: "LE Read Remote Features Complete", parameters: .none)),
        (0x05, .init(name: "LE Long Term Key Request", parameters: .none)),
        (0x06, .init(name: "LE Remote Connection Parameter Request", parameters: .none)),
        (0x07, .init(name: "LE Data Length Change", parameters: .dataLengthChange)),
        (0x08, .init(name: "LE Read Local P-256 Public Key Complete", parameters: .none)),
        (0x09, .init(name: "LE Generate DHKey Complete", parameters: .none)),
        (0x0a, .init(name: "LE Enhanced Connection Complete", parameters: .enhancedConnectionComplete)),
        (0x0b, .init(name: "LE Directed Advertising Report", parameters: .none)),
        (0x0c, .init(name: "LE PHY Update Complete", parameters: .phyUpdateComplete)),
        (0x0d, .init(name: "LE Extended Advertising Report", parameters: .extendedAdvertisingReport)),
        (0x0e, .init(name: "LE Periodic Advertising Sync Established", parameters: .none)),
        (0x0f, .init(name: "LE Periodic Advertising Report", parameters: .none)),
        (0x10, .init(name: "LE Periodic Advertising Sync Lost", parameters: .none)),
        (0x11, .init(name: "LE Scan Timeout", parameters: .none)),
        (0x12, .init(name: "LE Advertising Set Terminated", parameters: .none)),
        (0x13, .init(name: "LE Scan Request Received", parameters: .none)),
        (0x14, .init(name: "LE Channel Selection Algorithm", parameters: .none)),
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
