import BTLensCore

/// An L2CAP signalling command code (Core Specification, Vol 3, Part A, §4). Open: unknown codes still print.
public struct L2CAPSignalingCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.table[Int(rawValue)]?.name ?? "Unknown (\(Hex.value(rawValue, width: 2)))" }

    /// How a command's data is read.
    enum Parameters {
        /// PSM and source CID: the request of a new channel.
        case connectionRequest
        case connectionResponse
        /// LE (0x14/0x15) and Enhanced (0x17/0x18) credit-based channels, their credits and reconfiguration.
        case leCreditBasedConnectionRequest, leCreditBasedConnectionResponse
        case creditBasedConnectionRequest, creditBasedConnectionResponse, creditBasedReconfigureRequest
        case creditBasedReconfigureResponse
        case flowControlCredit
        /// Destination and source CID; the response closes the channel.
        case disconnectionRequest, disconnectionResponse
        /// The receiver's CID, flags, (a response's result,) options.
        case configurationRequest, configurationResponse
        case informationRequest, informationResponse, commandReject
        case connectionParameterUpdate, connectionParameterUpdateResponse
        /// Not read: the name alone is shown.
        case none
    }

    struct Definition {
        var name: String
        var parameters: Parameters
        /// Bytes of data the parameters need; a shorter command shows its name alone.
        var minimumSize: Int
    }

    /// Every command: its name, how its data is read, and how many bytes that needs. Requests and
    /// responses travel either way: either side of a link may ask.
    private static let definitions: [(UInt8, Definition)] = [
        (0x01, .init(name: "Command Reject", parameters: .commandReject, minimumSize: 2)),
        (0x02, .init(name: "Connection Request", parameters: .connectionRequest, minimumSize: 4)),
        (0x03, .init(name: "Connection Response", parameters: .connectionResponse, minimumSize: 0)),
        (0x04, .init(name: "Configuration Request", parameters: .configurationRequest, minimumSize: 2)),
        (0x05, .init(name: "Configuration Response", parameters: .configurationResponse, minimumSize: 2)),
        (0x06, .init(name: "Disconnection Request", parameters: .disconnectionRequest, minimumSize: 4)),
        (0x07, .init(name: "Disconnection Response", parameters: .disconnectionResponse, minimumSize: 4)),
        (0x08, .init(name: "Echo Request", parameters: .none, minimumSize: 0)),
        (0x09, .init(name: "Echo Response", parameters: .none, minimumSize: 0)),
        (0x0a, .init(name: "Information Request", parameters: .informationRequest, minimumSize: 2)),
        (0x0b, .init(name: "Information Response", parameters: .informationResponse, minimumSize: 4)),
        (
            0x12,
            .init(
                name: "Connection Parameter Update Request", parameters: .connectionParameterUpdate,
                minimumSize: 8)
        ),
        (
            0x13,
            .init(
                name: "Connection Parameter Update Response", parameters: .connectionParameterUpdateResponse,
                minimumSize: 2)
        ),
        (
            0x14,
            .init(
                name: "LE Credit Based Connection Request", parameters: .leCreditBasedConnectionRequest,
                minimumSize: 10)
        ),
        (
            0x15,
            .init(
                name: "LE Credit Based Connection Response", parameters: .leCreditBasedConnectionResponse,
                minimumSize: 10)
        ),
        (0x16, .init(name: "Flow Control Credit Indication", parameters: .flowControlCredit, minimumSize: 4)),
        (
            0x17,
            .init(name: "Credit Based Connection Request", parameters: .creditBasedConnectionRequest, minimumSize: 8)
        ),
        (
            0x18,
            .init(name: "Credit Based Connection Response", parameters: .creditBasedConnectionResponse, minimumSize: 8)
        ),
        (
            0x19,
            .init(name: "Credit Based Reconfigure Request", parameters: .creditBasedReconfigureRequest, minimumSize: 4)
        ),
        (
            0x1a,
            .init(
                name: "Credit Based Reconfigure Response", parameters: .creditBasedReconfigureResponse, minimumSize: 2)
        ),
    ]

    /// `definitions` by code: a lookup per command is an array index.
    static let table: [Definition?] = {
        var table = [Definition?](repeating: nil, count: 256)
        for (code, definition) in definitions { table[Int(code)] = definition }
        return table
    }()
}

/// Protocol/service multiplexers (Assigned Numbers), for naming dynamic channels.
public enum PSM {
    public static let sdp: UInt16 = 0x0001
    public static let rfcomm: UInt16 = 0x0003
    public static let att: UInt16 = 0x001f
    public static let eatt: UInt16 = 0x0027

    /// A profile's PSMs are named by its descriptor (`Analyzer.profiles`), the others here.
    public static func name(_ psm: UInt16) -> String {
        let names: [UInt16: String] = [
            0x0001: "SDP", 0x0003: "RFCOMM", 0x0005: "TCS-BIN", 0x000f: "BNEP", 0x0011: "HID Control",
            0x0013: "HID Interrupt", 0x001f: "ATT", 0x0023: "LE PSM IPSP", 0x0025: "OTS", 0x0027: "EATT",
        ]
        let profiles = Analyzer.profiles.lazy.flatMap(\.psms)
        return names[psm] ?? profiles.first { $0.psm == psm }?.name ?? "PSM \(Hex.value(psm, width: 4))"
    }
}

public struct L2CAPSignalingInfo: Sendable {
    public var code: L2CAPSignalingCode
    public var identifier: UInt8
    public var fields: [(String, FieldValue)]
    /// The CIDs a credit-based connection or reconfiguration command names, as numbers (its field
    /// lists several as text): a request's source CIDs, a response's destination CIDs (0 for a
    /// channel refused), a reconfiguration's destination CIDs.
    public var creditCIDs: [UInt16] = []
}
