import BTLensCore

/// An HCI event code. Open: unknown values still print.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String {
        Self.names[rawValue] ?? (rawValue == 0xff ? "Vendor" : "Unknown") + " (\(Hex.value(rawValue, width: 2)))"
    }

    public var isKnown: Bool { Self.names[rawValue] != nil }

    public static let connectionComplete = HCIEventCode(rawValue: 0x03)
    public static let connectionRequest = HCIEventCode(rawValue: 0x04)
    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    public static let encryptionChange = HCIEventCode(rawValue: 0x08)
    public static let commandComplete = HCIEventCode(rawValue: 0x0e)
    public static let commandStatus = HCIEventCode(rawValue: 0x0f)
    public static let roleChange = HCIEventCode(rawValue: 0x12)
    public static let numberOfCompletedPackets = HCIEventCode(rawValue: 0x13)
    public static let leMeta = HCIEventCode(rawValue: 0x3e)
    public static let encryptionChangeV2 = HCIEventCode(rawValue: 0x59)
    public static let encryptionKeyRefreshComplete = HCIEventCode(rawValue: 0x30)

    /// Names from the Core Specification, Vol 4, Part E, §7.7.
    static let names: [UInt8: String] = [
        0x01: "Inquiry Complete", 0x02: "Inquiry Result", 0x03: "Connection Complete",
        0x04: "Connection Request", 0x05: "Disconnection Complete", 0x06: "Authentication Complete",
        0x07: "Remote Name Request Complete", 0x08: "Encryption Change",
        0x09: "Change Connection Link Key Complete", 0x0a: "Link Key Type Changed",
        0x0b: "Read Remote Supported Features Complete", 0x0c: "Read Remote Version Information Complete",
        0x0d: "QoS Setup Complete", 0x0e: "Command Complete", 0x0f: "Command Status", 0x10: "Hardware Error",
        0x11: "Flush Occurred", 0x12: "Role Change", 0x13: "Number Of Completed Packets", 0x14: "Mode Change",
        0x15: "Return Link Keys", 0x16: "PIN Code Request", 0x17: "Link Key Request",
        0x18: "Link Key Notification", 0x19: "Loopback Command", 0x1a: "Data Buffer Overflow",
        0x1b: "Max Slots Change", 0x1c: "Read Clock Offset Complete", 0x1d: "Connection Packet Type Changed",
        0x1e: "QoS Violation", 0x20: "Page Scan Repetition Mode Change", 0x21: "Flow Specification Complete",
        0x22: "Inquiry Result with RSSI", 0x23: "Read Remote Extended Features Complete",
        0x2c: "Synchronous Connection Complete", 0x2d: "Synchronous Connection Changed",
        0x2e: "Sniff Subrating", 0x2f: "Extended Inquiry Result", 0x30: "Encryption Key Refresh Complete",
        0x31: "IO Capability Request", 0x32: "IO Capability Response", 0x33: "User Confirmation Request",
        0x34: "User Passkey Request", 0x35: "Remote OOB Data Request", 0x36: "Simple Pairing Complete",
        0x38: "Link Supervision Timeout Changed", 0x39: "Enhanced Flush Complete",
        0x3b: "User Passkey Notification", 0x3c: "Keypress Notification",
        0x3d: "Remote Host Supported Features Notification", 0x3e: "LE Meta",
        0x48: "Number Of Completed Data Blocks", 0x57: "Authenticated Payload Timeout Expired",
        0x59: "Encryption Change V2", 0xff: "Vendor",
    ]
}

/// The subevent of an LE Meta event.
public struct LESubeventCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "LE Unknown (\(Hex.value(rawValue, width: 2)))" }
    public var isKnown: Bool { Self.names[rawValue] != nil }

    public static let connectionComplete = LESubeventCode(rawValue: 0x01)
    public static let enhancedConnectionComplete = LESubeventCode(rawValue: 0x0a)
    public static let enhancedConnectionCompleteV2 = LESubeventCode(rawValue: 0x29)

    static let names: [UInt8: String] = [
        0x01: "LE Connection Complete", 0x02: "LE Advertising Report", 0x03: "LE Connection Update Complete",
        0x04: "LE Read Remote Features Complete", 0x05: "LE Long Term Key Request",
        0x06: "LE Remote Connection Parameter Request", 0x07: "LE Data Length Change",
        0x08: "LE Read Local P-256 Public Key Complete", 0x09: "LE Generate DHKey Complete",
        0x0a: "LE Enhanced Connection Complete", 0x0b: "LE Directed Advertising Report",
        0x0c: "LE PHY Update Complete", 0x0d: "LE Extended Advertising Report",
        0x0e: "LE Periodic Advertising Sync Established", 0x0f: "LE Periodic Advertising Report",
        0x10: "LE Periodic Advertising Sync Lost", 0x11: "LE Scan Timeout", 0x12: "LE Advertising Set Terminated",
        0x13: "LE Scan Request Received", 0x14: "LE Channel Selection Algorithm",
        0x19: "LE CIS Established", 0x1a: "LE CIS Request", 0x1b: "LE Create BIG Complete",
        0x1c: "LE Terminate BIG Complete", 0x29: "LE Enhanced Connection Complete V2",
    ]
}
