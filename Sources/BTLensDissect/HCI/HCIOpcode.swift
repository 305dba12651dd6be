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

    /// Every command btlens names (§7): opcode, name, what is read of it. No Operation is named
    /// because controllers send it in Command Complete/Status to report free command slots (§7.7.14).
    private static let definitions: [(UInt16, String, HCICommandParameters)] = [
        (0x0000, "No Operation", .none), (0x0401, "Inquiry", .none), (0x0402, "Inquiry Cancel", .none),
        (0x0403, "Periodic Inquiry Mode", .none), (0x0404, "Exit Periodic Inquiry Mode", .none),
        (0x0405, "Create Connection", .createConnection), (0x0406, "Disconnect", .disconnect),
        (0x0408, "Create Connection Cancel", .createConnectionCancel), (0x0409, "Accept Connection Request", .none),
        (0x040a, "Reject Connection Request", .none), (0x040b, "Link Key Request Reply", .none),
        (0x040c, "Link Key Request Negative Reply", .none), (0x040d, "PIN Code Request Reply", .none),
        (0x040e, "PIN Code Request Negative Reply", .none), (0x040f, "Change Connection Packet Type", .none),
        (0x0411, "Authentication Requested", .none), (0x0413, "Set Connection Encryption", .none),
        (0x0415, "Change Connection Link Key", .none), (0x0419, "Remote Name Request", .none),
        (0x041a, "Remote Name Request Cancel", .none), (0x041b, "Read Remote Supported Features", .none),
        (0x041c, "Read Remote Extended Features", .none), (0x041d, "Read Remote Version Information", .none),
        (0x041f, "Read Clock Offset", .none), (0x0420, "Read LMP Handle", .none),
        (0x0428, "Setup Synchronous Connection", .none), (0x0429, "Accept Synchronous Connection Request", .none),
        (0x042a, "Reject Synchronous Connection Request", .none), (0x042b, "IO Capability Request Reply", .none),
        (0x042c, "User Confirmation Request Reply", .none), (0x042d, "User Confirmation Request Negative Reply", .none),
        (0x042e, "User Passkey Request Reply", .none), (0x042f, "User Passkey Request Negative Reply", .none),
        (0x0430, "Remote OOB Data Request Reply", .none), (0x0433, "Remote OOB Data Request Negative Reply", .none),
        (0x0434, "IO Capability Request Negative Reply", .none),
        (0x043d, "Enhanced Setup Synchronous Connection", .none),
        (0x043e, "Enhanced Accept Synchronous Connection Request", .none), (0x0801, "Hold Mode", .none),
        (0x0803, "Sniff Mode", .none), (0x0804, "Exit Sniff Mode", .none), (0x0807, "QoS Setup", .none),
        (0x0809, "Role Discovery", .none), (0x080b, "Switch Role", .none), (0x080c, "Read Link Policy Settings", .none),
        (0x080d, "Write Link Policy Settings", .none), (0x080e, "Read Default Link Policy Settings", .none),
        (0x080f, "Write Default Link Policy Settings", .none), (0x0811, "Sniff Subrating", .none),
        (0x0c01, "Set Event Mask", .none), (0x0c03, "Reset", .none), (0x0c05, "Set Event Filter", .none),
        (0x0c08, "Flush", .none), (0x0c09, "Read PIN Type", .none), (0x0c0a, "Write PIN Type", .none),
        (0x0c0d, "Read Stored Link Key", .none), (0x0c11, "Write Stored Link Key", .none),
        (0x0c12, "Delete Stored Link Key", .none), (0x0c13, "Write Local Name", .writeLocalName),
        (0x0c14, "Read Local Name", .readLocalName), (0x0c15, "Read Connection Accept Timeout", .none),
        (0x0c16, "Write Connection Accept Timeout", .none), (0x0c17, "Read Page Timeout", .none),
        (0x0c18, "Write Page Timeout", .none), (0x0c19, "Read Scan Enable", .none),
        (0x0c1a, "Write Scan Enable", .none), (0x0c1b, "Read Page Scan Activity", .none),
        (0x0c1c, "Write Page Scan Activity", .none), (0x0c1d, "Read Inquiry Scan Activity", .none),
        (0x0c1e, "Write Inquiry Scan Activity", .none), (0x0c1f, "Read Authentication Enable", .none),
        (0x0c20, "Write Authentication Enable", .none), (0x0c23, "Read Class of Device", .none),
        (0x0c24, "Write Class of Device", .none), (0x0c25, "Read Voice Setting", .none),
        (0x0c26, "Write Voice Setting", .none), (0x0c27, "Read Automatic Flush Timeout", .none),
        (0x0c28, "Write Automatic Flush Timeout", .none), (0x0c2d, "Read Transmit Power Level", .none),
        (0x0c2e, "Read Synchronous Flow Control Enable", .none),
        (0x0c2f, "Write Synchronous Flow Control Enable", .none),
        (0x0c31, "Set Controller To Host Flow Control", .none), (0x0c33, "Host Buffer Size", .none),
        (0x0c35, "Host Number Of Completed Packets", .none), (0x0c36, "Read Link Supervision Timeout", .none),
        (0x0c37, "Write Link Supervision Timeout", .none), (0x0c38, "Read Number Of Supported IAC", .none),
        (0x0c39, "Read Current IAC LAP", .none), (0x0c3a, "Write Current IAC LAP", .none),
        (0x0c3f, "Set AFH Host Channel Classification", .none), (0x0c42, "Read Inquiry Scan Type", .none),
        (0x0c43, "Write Inquiry Scan Type", .none), (0x0c44, "Read Inquiry Mode", .none),
        (0x0c45, "Write Inquiry Mode", .none), (0x0c46, "Read Page Scan Type", .none),
        (0x0c47, "Write Page Scan Type", .none), (0x0c48, "Read AFH Channel Assessment Mode", .none),
        (0x0c49, "Write AFH Channel Assessment Mode", .none), (0x0c51, "Read Extended Inquiry Response", .none),
        (0x0c52, "Write Extended Inquiry Response", .none), (0x0c53, "Refresh Encryption Key", .none),
        (0x0c55, "Read Simple Pairing Mode", .none), (0x0c56, "Write Simple Pairing Mode", .none),
        (0x0c57, "Read Local OOB Data", .none), (0x0c58, "Read Inquiry Response Transmit Power Level", .none),
        (0x0c59, "Write Inquiry Transmit Power Level", .none), (0x0c5a, "Read Default Erroneous Data Reporting", .none),
        (0x0c5b, "Write Default Erroneous Data Reporting", .none), (0x0c63, "Set Event Mask Page 2", .none),
        (0x0c6c, "Read LE Host Support", .none), (0x0c6d, "Write LE Host Support", .none),
        (0x0c79, "Read Secure Connections Host Support", .none),
        (0x0c7a, "Write Secure Connections Host Support", .none), (0x0c7b, "Read Authenticated Payload Timeout", .none),
        (0x0c7c, "Write Authenticated Payload Timeout", .none), (0x0c7d, "Read Local OOB Extended Data", .none),
        (0x1001, "Read Local Version Information", .none), (0x1002, "Read Local Supported Commands", .none),
        (0x1003, "Read Local Supported Features", .none), (0x1004, "Read Local Extended Features", .none),
        (0x1005, "Read Buffer Size", .readBufferSize), (0x1009, "Read BD_ADDR", .none),
        (0x100a, "Read Data Block Size", .none), (0x100b, "Read Local Supported Codecs", .none),
        (0x100d, "Read Local Supported Codecs V2", .none), (0x1401, "Read Failed Contact Counter", .none),
        (0x1402, "Reset Failed Contact Counter", .none), (0x1403, "Read Link Quality", .none),
        (0x1405, "Read RSSI", .none), (0x1406, "Read AFH Channel Map", .none), (0x1407, "Read Clock", .none),
        (0x1408, "Read Encryption Key Size", .none), (0x2001, "LE Set Event Mask", .none),
        (0x2002, "LE Read Buffer Size", .leReadBufferSize), (0x2003, "LE Read Local Supported Features", .none),
        (0x2005, "LE Set Random Address", .none), (0x2006, "LE Set Advertising Parameters", .none),
        (0x2007, "LE Read Advertising Physical Channel Tx Power", .none), (0x2008, "LE Set Advertising Data", .none),
        (0x2009, "LE Set Scan Response Data", .none), (0x200a, "LE Set Advertising Enable", .none),
        (0x200b, "LE Set Scan Parameters", .none), (0x200c, "LE Set Scan Enable", .none),
        (0x200d, "LE Create Connection", .leCreateConnection),
        (0x200e, "LE Create Connection Cancel", .createConnectionCancel),
        (0x200f, "LE Read Filter Accept List Size", .none), (0x2010, "LE Clear Filter Accept List", .none),
        (0x2011, "LE Add Device To Filter Accept List", .none),
        (0x2012, "LE Remove Device From Filter Accept List", .none), (0x2013, "LE Connection Update", .none),
        (0x2014, "LE Set Host Channel Classification", .none), (0x2015, "LE Read Channel Map", .none),
        (0x2016, "LE Read Remote Features", .none), (0x2017, "LE Encrypt", .none), (0x2018, "LE Rand", .none),
        (0x2019, "LE Enable Encryption", .none), (0x201a, "LE Long Term Key Request Reply", .none),
        (0x201b, "LE Long Term Key Request Negative Reply", .none), (0x201c, "LE Read Supported States", .none),
        (0x201d, "LE Receiver Test", .none), (0x201e, "LE Transmitter Test", .none), (0x201f, "LE Test End", .none),
        (0x2020, "LE Remote Connection Parameter Request Reply", .none),
        (0x2021, "LE Remote Connection Parameter Request Negative Reply", .none), (0x2022, "LE Set Data Length", .none),
        (0x2023, "LE Read Suggested Default Data Length", .none),
        (0x2024, "LE Write Suggested Default Data Length", .none), (0x2025, "LE Read Local P-256 Public Key", .none),
        (0x2026, "LE Generate DHKey", .none), (0x2027, "LE Add Device To Resolving List", .none),
        (0x2028, "LE Remove Device From Resolving List", .none), (0x2029, "LE Clear Resolving List", .none),
        (0x202a, "LE Read Resolving List Size", .none), (0x202b, "LE Read Peer Resolvable Address", .none),
        (0x202c, "LE Read Local Resolvable Address", .none), (0x202d, "LE Set Address Resolution Enable", .none),
        (0x202e, "LE Set Resolvable Private Address Timeout", .none), (0x202f, "LE Read Maximum Data Length", .none),
        (0x2030, "LE Read PHY", .none), (0x2031, "LE Set Default PHY", .none), (0x2032, "LE Set PHY", .none),
        (0x2035, "LE Set Advertising Set Random Address", .none),
        (0x2036, "LE Set Extended Advertising Parameters", .none), (0x2037, "LE Set Extended Advertising Data", .none),
        (0x2038, "LE Set Extended Scan Response Data", .none), (0x2039, "LE Set Extended Advertising Enable", .none),
        (0x203a, "LE Read Maximum Advertising Data Length", .none),
        (0x203b, "LE Read Number of Supported Advertising Sets", .none), (0x203c, "LE Remove Advertising Set", .none),
        (0x203d, "LE Clear Advertising Sets", .none), (0x203e, "LE Set Periodic Advertising Parameters", .none),
        (0x203f, "LE Set Periodic Advertising Data", .none), (0x2040, "LE Set Periodic Advertising Enable", .none),
        (0x2041, "LE Set Extended Scan Parameters", .none), (0x2042, "LE Set Extended Scan Enable", .none),
        (0x2043, "LE Extended Create Connection", .leExtendedCreateConnection),
        (0x2044, "LE Periodic Advertising Create Sync", .none),
        (0x2045, "LE Periodic Advertising Create Sync Cancel", .none),
        (0x2046, "LE Periodic Advertising Terminate Sync", .none), (0x204a, "LE Read Transmit Power", .none),
        (0x204b, "LE Read RF Path Compensation", .none), (0x204c, "LE Write RF Path Compensation", .none),
        (0x204e, "LE Set Privacy Mode", .none), (0x2060, "LE Read Buffer Size V2", .leReadBufferSize),
        (0x2074, "LE Set Host Feature", .none),
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
enum HCICommandParameters {
    case createConnection, disconnect, leCreateConnection, leExtendedCreateConnection
    /// Create Connection Cancel and LE Create Connection Cancel: the attempt they cancel ends.
    case createConnectionCancel
    /// Read Buffer Size: its completion gives the controller's ACL buffers.
    case readBufferSize
    /// LE Read Buffer Size (V1 and V2): its completion gives the LE ACL buffers.
    case leReadBufferSize
    /// The controller's name: Write Local Name's parameter (§7.3.11), Read Local Name's return (§7.3.12).
    case writeLocalName, readLocalName
    case none
}
