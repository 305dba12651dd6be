import BTLensCore

/// Security Manager Protocol failure reasons (Core Vol 3, Part H, §3.5.5).
public struct SMPFailureReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "Reserved (\(Hex.value(rawValue, width: 2)))" }

    static let names: [UInt8: String] = [
        0x01: "Passkey Entry Failed", 0x02: "OOB Not Available", 0x03: "Authentication Requirements",
        0x04: "Confirm Value Failed", 0x05: "Pairing Not Supported", 0x06: "Encryption Key Size",
        0x07: "Command Not Supported", 0x08: "Unspecified Reason", 0x09: "Repeated Attempts",
        0x0a: "Invalid Parameters", 0x0b: "DHKey Check Failed", 0x0c: "Numeric Comparison Failed",
        0x0d: "BR/EDR Pairing In Progress", 0x0e: "Cross-transport Key Derivation/Generation Not Allowed",
        0x0f: "Key Rejected", 0x10: "Busy",
    ]
}

/// SMP codes btlens reads (Core Vol 3, Part H, §3.3): enough to say how pairing went.
enum SMPCode {
    static let pairingRequest: UInt8 = 0x01
    static let pairingFailed: UInt8 = 0x05
    static let securityRequest: UInt8 = 0x0b
}
