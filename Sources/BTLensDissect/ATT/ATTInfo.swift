import BTLensCore

/// One decoded ATT PDU.
public struct ATTInfo: Sendable {
    public var opcode: ATTOpcode
    /// The attribute handle the PDU concerns (for responses: the handle of its request).
    public var handle: UInt16?
    /// The capture cut the PDU short: `value` is partial. (Declared here, beside the handle, it
    /// fills their padding: an info is the largest event payload.)
    public var truncated = false
    /// The attribute's UUID, when discovery in the capture revealed it.
    public var uuid: BluetoothUUID?
    /// Shares storage with the capture's read buffer: a consumer that keeps it copies it (`Array(value)`).
    public var value: ArraySlice<UInt8>?
    public var fields: [(String, FieldValue)] = []
    /// What a by-type PDU names, as data: `fields` says it as text.
    public var byType: ATTByType?
}

/// The Attribute Type a by-type request asks for, or the attributes a Read By Type Response
/// gives (Core Vol 3 Part F §3.4.3.3, §3.4.4.1, §3.4.4.2, §3.4.4.9). Boxed: few PDUs have one, and
/// an inline UUID or list would make every ATT event larger.
public indirect enum ATTByType: Sendable, Equatable {
    /// Find By Type Value, Read By Type and Read By Group Type Requests.
    case attributeType(BluetoothUUID)
    /// A Read By Type Response's Attribute Data List, in order.
    case attributeData([ATTAttributeData])
}

/// One element of a Read By Type Response: an attribute's handle and its value (a characteristic
/// declaration's, when the request asked for characteristics).
public struct ATTAttributeData: Sendable, Equatable {
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// A value put together from several PDUs: a long read (Read Blob) or a long write (Prepare/Execute).
public struct GATTValue: Sendable {
    public enum Kind: String, Sendable {
        case longRead = "long_read"
        case longWrite = "long_write"
        case longWriteCancelled = "long_write_cancelled"
    }
    public var kind: Kind
    public var handle: UInt16
    public var uuid: BluetoothUUID?
    public var value: [UInt8]
    public var firstRecord: Int
    /// The value as text, for string characteristics (Device Information, Device Name).
    public var text: String?
}

public enum ATTDiagnostics {
    public static let malformed = DiagnosticKind(
        "att.malformed", .error, "An ATT PDU is shorter than its opcode's parameters need, or its list is ragged.")
    public static let unknownOpcode = DiagnosticKind(
        "att.opcode.unknown", .note, "An ATT opcode btlens does not know; its bytes are shown, not decoded.")
    public static let empty = DiagnosticKind("att.empty", .error, "An ATT PDU with no opcode byte.")
    public static let prepareGap = DiagnosticKind(
        "att.prepare_write.gap", .warning,
        "Prepared writes for a handle do not join up (an offset differs from the bytes before it).")
    public static let queueFull = DiagnosticKind(
        "att.prepare_write.queue_limit", .warning,
        "Prepared writes beyond btlens' queue limit (64 KiB per client) are not kept.")
    public static let executeWithoutPrepare = DiagnosticKind(
        "att.execute_write.empty", .note, "An Execute Write Request with nothing prepared in the capture.")

    public static let all = [malformed, unknownOpcode, empty, prepareGap, queueFull, executeWithoutPrepare]
}
