import BTLensCore

/// HCI status and reason codes (Core Specification, Vol 1, Part F). The one table for them.
public struct HCIErrorCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }
    public var isSuccess: Bool { rawValue == 0 }

    static let names: [UInt8: String] = [
        0x00: "Success", 0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier",
        0x03: "Hardware Failure", 0x04: "Page Timeout", 0x05: "Authentication Failure",
        0x06: "PIN or Key Missing", 0x07: "Memory Capacity Exceeded", 0x08: "Connection Timeout",
        0x09: "Connection Limit Exceeded", 0x0a: "Synchronous Connection Limit To A Device Exceeded",
        0x0b: "Connection Already Exists", 0x0c: "Command Disallowed",
        0x0d: "Connection Rejected due to Limited Resources", 0x0e: "Connection Rejected Due To Security Reasons",
        0x0f: "Connection Rejected due to Unacceptable BD_ADDR", 0x10: "Connection Accept Timeout Exceeded",
        0x11: "Unsupported Feature or Parameter Value", 0x12: "Invalid HCI Command Parameters",
        0x13: "Remote User Terminated Connection",
        0x14: "Remote Device Terminated Connection due to Low Resources",
        0x15: "Remote Device Terminated Connection due to Power Off", 0x16: "Connection Terminated By Local Host",
        0x17: "Repeated Attempts", 0x18: "Pairing Not Allowed", 0x19: "Unknown LMP PDU",
        0x1a: "Unsupported Remote Feature", 0x1b: "SCO Offset Rejected", 0x1c: "SCO Interval Rejected",
        0x1d: "SCO Air Mode Rejected", 0x1e: "Invalid LMP Parameters / Invalid LL Parameters",
        0x1f: "Unspecified Error", 0x20: "Unsupported LMP Parameter Value / Unsupported LL Parameter Value",
        0x21: "Role Change Not Allowed", 0x22: "LMP Response Timeout / LL Response Timeout",
        0x23: "LMP Error Transaction Collision / LL Procedure Collision", 0x24: "LMP PDU Not Allowed",
        0x25: "Encryption Mode Not Acceptable", 0x26: "Link Key cannot be Changed",
        0x27: "Requested QoS Not Supported", 0x28: "Instant Passed",
        0x29: "Pairing With Unit Key Not Supported", 0x2a: "Different Transaction Collision",
        0x2c: "QoS Unacceptable Parameter", 0x2d: "QoS Rejected", 0x2e: "Channel Classification Not Supported",
        0x2f: "Insufficient Security", 0x30: "Parameter Out Of Mandatory Range", 0x32: "Role Switch Pending",
        0x34: "Reserved Slot Violation", 0x35: "Role Switch Failed", 0x36: "Extended Inquiry Response Too Large",
        0x37: "Secure Simple Pairing Not Supported By Host", 0x38: "Host Busy - Pairing",
        0x39: "Connection Rejected due to No Suitable Channel Found", 0x3a: "Controller Busy",
        0x3b: "Unacceptable Connection Parameters", 0x3c: "Advertising Timeout",
        0x3d: "Connection Terminated due to MIC Failure", 0x3e: "Connection Failed to be Established",
        0x40: "Coarse Clock Adjustment Rejected", 0x41: "Type0 Submap Not Defined",
        0x42: "Unknown Advertising Identifier", 0x43: "Limit Reached", 0x44: "Operation Cancelled by Host",
        0x45: "Packet Too Long", 0x46: "Too Late", 0x47: "Too Early",
    ]
}
