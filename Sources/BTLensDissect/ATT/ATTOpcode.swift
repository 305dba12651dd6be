import BTLensCore

/// An ATT opcode (Core Specification, Vol 3, Part F, §3.4.8). Open: unknown values still print.
/// The constants give the numbers; `definitions` says, once per opcode, everything else.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.table[Int(rawValue)]?.name ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }
    public var isKnown: Bool { Self.table[Int(rawValue)] != nil }

    /// Sent by the server (responses, notifications, indications); the rest, and unknown opcodes,
    /// come from the client.
    public var isFromServer: Bool { Self.table[Int(rawValue)]?.sender == .server }

    /// How the parameters are read; nil for an opcode the specification does not define.
    var parameters: ATTParameters? { Self.table[Int(rawValue)]?.parameters }

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

    enum Sender { case client, server }

    struct Definition {
        var name: String
        var sender: Sender
        var parameters: ATTParameters
    }

    /// Every opcode: its name, who sends it, how its parameters are read.
    private static let definitions: [(ATTOpcode, Definition)] = [
        (.errorResponse, .init(name: "Error Response", sender: .server, parameters: .errorResponse)),
        (.exchangeMTURequest, .init(name: "Exchange MTU Request", sender: .client, parameters: .mtuRequest)),
        (.exchangeMTUResponse, .init(name: "Exchange MTU Response", sender: .server, parameters: .mtuResponse)),
        (.findInformationRequest, .init(name: "Find Information Request", sender: .client, parameters: .range)),
        (
            .findInformationResponse,
            .init(name: "Find Information Response", sender: .server, parameters: .findInformationResponse)
        ),
        (.findByTypeValueRequest, .init(name: "Find By Type Value Request", sender: .client, parameters: .range)),
        (
            .findByTypeValueResponse,
            .init(name: "Find By Type Value Response", sender: .server, parameters: .findByTypeValueResponse)
        ),
        (.readByTypeRequest, .init(name: "Read By Type Request", sender: .client, parameters: .range)),
        (.readByTypeResponse, .init(name: "Read By Type Response", sender: .server, parameters: .readByTypeResponse)),
        (.readRequest, .init(name: "Read Request", sender: .client, parameters: .readRequest)),
        (.readResponse, .init(name: "Read Response", sender: .server, parameters: .readValue)),
        (.readBlobRequest, .init(name: "Read Blob Request", sender: .client, parameters: .readBlobRequest)),
        (.readBlobResponse, .init(name: "Read Blob Response", sender: .server, parameters: .readValue)),
        (.readMultipleRequest, .init(name: "Read Multiple Request", sender: .client, parameters: .handles)),
        (.readMultipleResponse, .init(name: "Read Multiple Response", sender: .server, parameters: .values)),
        (.readByGroupTypeRequest, .init(name: "Read By Group Type Request", sender: .client, parameters: .range)),
        (
            .readByGroupTypeResponse,
            .init(name: "Read By Group Type Response", sender: .server, parameters: .readByGroupTypeResponse)
        ),
        (.writeRequest, .init(name: "Write Request", sender: .client, parameters: .handleValue)),
        (.writeResponse, .init(name: "Write Response", sender: .server, parameters: .writeResponse)),
        (.prepareWriteRequest, .init(name: "Prepare Write Request", sender: .client, parameters: .prepareWriteRequest)),
        (
            .prepareWriteResponse,
            .init(name: "Prepare Write Response", sender: .server, parameters: .prepareWriteResponse)
        ),
        (.executeWriteRequest, .init(name: "Execute Write Request", sender: .client, parameters: .executeWriteRequest)),
        (.executeWriteResponse, .init(name: "Execute Write Response", sender: .server, parameters: .writeResponse)),
        (.handleValueNotification, .init(name: "Handle Value Notification", sender: .server, parameters: .handleValue)),
        (.handleValueIndication, .init(name: "Handle Value Indication", sender: .server, parameters: .handleValue)),
        (.handleValueConfirmation, .init(name: "Handle Value Confirmation", sender: .client, parameters: .none)),
        (
            .readMultipleVariableRequest,
            .init(name: "Read Multiple Variable Request", sender: .client, parameters: .handles)
        ),
        (
            .readMultipleVariableResponse,
            .init(name: "Read Multiple Variable Response", sender: .server, parameters: .values)
        ),
        (
            .multipleHandleValueNotification,
            .init(name: "Multiple Handle Value Notification", sender: .server, parameters: .multipleHandleValues)
        ),
        (.writeCommand, .init(name: "Write Command", sender: .client, parameters: .handleValue)),
        (.signedWriteCommand, .init(name: "Signed Write Command", sender: .client, parameters: .signedWrite)),
    ]

    /// `definitions` by opcode: a lookup per PDU is an array index.
    static let table: [Definition?] = {
        var table = [Definition?](repeating: nil, count: 256)
        for (opcode, definition) in definitions { table[Int(opcode.rawValue)] = definition }
        return table
    }()
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
