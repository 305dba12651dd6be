import BTLensCore

/// An ATT opcode (Core Specification, Vol 3, Part F, §3.4.8). Open: unknown values still print.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }
    public var isKnown: Bool { Self.names[rawValue] != nil }

    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    public static let readRequest = ATTOpcode(rawValue: 0x0a)
    public static let readResponse = ATTOpcode(rawValue: 0x0b)
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0c)
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0d)
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0e)
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0f)
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1b)
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1d)
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1e)
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xd2)

    static let names: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0a: "Read Request", 0x0b: "Read Response",
        0x0c: "Read Blob Request", 0x0d: "Read Blob Response", 0x0e: "Read Multiple Request",
        0x0f: "Read Multiple Response", 0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request",
        0x17: "Prepare Write Response", 0x18: "Execute Write Request", 0x19: "Execute Write Response",
        0x1b: "Handle Value Notification", 0x1d: "Handle Value Indication", 0x1e: "Handle Value Confirmation",
        0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
        0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xd2: "Signed Write Command",
    ]

    /// Sent by the server (responses, notifications, indications); the rest come from the client.
    public var isFromServer: Bool {
        switch rawValue {
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0b, 0x0d, 0x0f, 0x11, 0x13, 0x17, 0x19, 0x1b, 0x1d, 0x21, 0x23: return true
        default: return false
        }
    }
}

/// ATT error codes (Vol 3, Part F, §3.4.1.1, and the Core Specification Supplement for 0xFC–0xFF).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String {
        if let n = Self.names[rawValue] { return n }
        if (0x80...0x9f).contains(rawValue) { return "Application Error (\(Hex.value(rawValue, width: 2)))" }
        return "Unknown (\(Hex.value(rawValue, width: 2)))"
    }

    static let names: [UInt8: String] = [
        0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
        0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
        0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0a: "Attribute Not Found",
        0x0b: "Attribute Not Long", 0x0c: "Encryption Key Size Too Short", 0x0d: "Invalid Attribute Value Length",
        0x0e: "Unlikely Error", 0x0f: "Insufficient Encryption", 0x10: "Unsupported Group Type",
        0x11: "Insufficient Resources", 0x12: "Database Out Of Sync", 0x13: "Value Not Allowed",
        0xfc: "Write Request Rejected", 0xfd: "Client Characteristic Configuration Descriptor Improperly Configured",
        0xfe: "Procedure Already in Progress", 0xff: "Out of Range",
    ]
}
