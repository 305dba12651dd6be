import BTLensCore

/// An HCI command opcode (OGF << 10 | OCF). Open: unknown values still print.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var ogf: UInt16 { rawValue >> 10 }
    public var ocf: UInt16 { rawValue & 0x3ff }

    /// `LE Set Scan Enable`, `Vendor (0xfc22)`, `Unknown (0x2099)`.
    public var name: String {
        if let n = Self.names[rawValue] { return n }
        // OGF 0x3D is not HCI: BTstack's daemon logs its own pseudo-commands there (iOS BTstack pklg files).
        let kind = ogf == 0x3f ? "Vendor" : ogf == 0x3d ? "BTstack daemon" : "Unknown"
        return kind + " (\(Hex.value(rawValue, width: 4)))"
    }

    public var isKnown: Bool { Self.names[rawValue] != nil }

    public var description: String { isKnown ? "\(name) (\(Hex.value(rawValue, width: 4)))" : name }

    public static let createConnection = HCIOpcode(rawValue: 0x0405)
    public static let disconnect = HCIOpcode(rawValue: 0x0406)
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200d)
    public static let createConnectionCancel = HCIOpcode(rawValue: 0x0408)
    public static let leCreateConnectionCancel = HCIOpcode(rawValue: 0x200e)
    public static let leExtendedCreateConnection = HCIOpcode(rawValue: 0x2043)

    /// Names from the Core Specification, Vol 4, Part E, §7.
    static let names: [UInt16: String] = [
        // Controllers send it in Command Complete/Status to report free command slots (§7.7.14).
        0x0000: "No Operation",
        0x0401: "Inquiry", 0x0402: "Inquiry Cancel", 0x0403: "Periodic Inquiry Mode",
        0x0404: "Exit Periodic Inquiry Mode", 0x0405: "Create Connection", 0x0406: "Disconnect",
        0x0408: "Create Connection Cancel", 0x0409: "Accept Connection Request",
        0x040a: "Reject Connection Request", 0x040b: "Link Key Request Reply",
        0x040c: "Link Key Request Negative Reply", 0x040d: "PIN Code Request Reply",
        0x040e: "PIN Code Request Negative Reply", 0x040f: "Change Connection Packet Type",
        0x0411: "Authentication Requested", 0x0413: "Set Connection Encryption",
        0x0415: "Change Connection Link Key", 0x0419: "Remote Name Request",
        0x041a: "Remote Name Request Cancel", 0x041b: "Read Remote Supported Features",
        0x041c: "Read Remote Extended Features", 0x041d: "Read Remote Version Information",
        0x041f: "Read Clock Offset", 0x0420: "Read LMP Handle", 0x0428: "Setup Synchronous Connection",
        0x0429: "Accept Synchronous Connection Request", 0x042a: "Reject Synchronous Connection Request",
        0x042b: "IO Capability Request Reply", 0x042c: "User Confirmation Request Reply",
        0x042d: "User Confirmation Request Negative Reply", 0x042e: "User Passkey Request Reply",
        0x042f: "User Passkey Request Negative Reply", 0x0430: "Remote OOB Data Request Reply",
        0x0433: "Remote OOB Data Request Negative Reply", 0x0434: "IO Capability Request Negative Reply",
        0x043d: "Enhanced Setup Synchronous Connection",
        0x043e: "Enhanced Accept Synchronous Connection Request",
        0x0801: "Hold Mode", 0x0803: "Sniff Mode", 0x0804: "Exit Sniff Mode", 0x0807: "QoS Setup",
        0x0809: "Role Discovery", 0x080b: "Switch Role", 0x080c: "Read Link Policy Settings",
        0x080d: "Write Link Policy Settings", 0x080e: "Read Default Link Policy Settings",
        0x080f: "Write Default Link Policy Settings", 0x0811: "Sniff Subrating",
        0x0c01: "Set Event Mask", 0x0c03: "Reset", 0x0c05: "Set Event Filter", 0x0c08: "Flush",
        0x0c09: "Read PIN Type", 0x0c0a: "Write PIN Type", 0x0c0d: "Read Stored Link Key",
        0x0c11: "Write Stored Link Key", 0x0c12: "Delete Stored Link Key", 0x0c13: "Write Local Name",
        0x0c14: "Read Local Name", 0x0c15: "Read Connection Accept Timeout",
        0x0c16: "Write Connection Accept Timeout", 0x0c17: "Read Page Timeout", 0x0c18: "Write Page Timeout",
        0x0c19: "Read Scan Enable", 0x0c1a: "Write Scan Enable", 0x0c1b: "Read Page Scan Activity",
        0x0c1c: "Write Page Scan Activity", 0x0c1d: "Read Inquiry Scan Activity",
        0x0c1e: "Write Inquiry Scan Activity", 0x0c1f: "Read Authentication Enable",
        0x0c20: "Write Authentication Enable", 0x0c23: "Read Class of Device", 0x0c24: "Write Class of Device",
        0x0c25: "Read Voice Setting", 0x0c26: "Write Voice Setting", 0x0c27: "Read Automatic Flush Timeout",
        0x0c28: "Write Automatic Flush Timeout", 0x0c2d: "Read Transmit Power Level",
        0x0c2e: "Read Synchronous Flow Control Enable", 0x0c2f: "Write Synchronous Flow Control Enable",
        0x0c31: "Set Controller To Host Flow Control", 0x0c33: "Host Buffer Size",
        0x0c35: "Host Number Of Completed Packets", 0x0c36: "Read Link Supervision Timeout",
        0x0c37: "Write Link Supervision Timeout", 0x0c38: "Read Number Of Supported IAC",
        0x0c39: "Read Current IAC LAP", 0x0c3a: "Write Current IAC LAP",
        0x0c3f: "Set AFH Host Channel Classification", 0x0c42: "Read Inquiry Scan Type",
        0x0c43: "Write Inquiry Scan Type", 0x0c44: "Read Inquiry Mode", 0x0c45: "Write Inquiry Mode",
        0x0c46: "Read Page Scan Type", 0x0c47: "Write Page Scan Type",
        0x0c48: "Read AFH Channel Assessment Mode", 0x0c49: "Write AFH Channel Assessment Mode",
        0x0c51: "Read Extended Inquiry Response", 0x0c52: "Write Extended Inquiry Response",
        0x0c53: "Refresh Encryption Key", 0x0c55: "Read Simple Pairing Mode", 0x0c56: "Write Simple Pairing Mode",
        0x0c57: "Read Local OOB Data", 0x0c58: "Read Inquiry Response Transmit Power Level",
        0x0c59: "Write Inquiry Transmit Power Level", 0x0c5a: "Read Default Erroneous Data Reporting",
        0x0c5b: "Write Default Erroneous Data Reporting", 0x0c63: "Set Event Mask Page 2",
        0x0c6c: "Read LE Host Support", 0x0c6d: "Write LE Host Support",
        0x0c79: "Read Secure Connections Host Support", 0x0c7a: "Write Secure Connections Host Support",
        0x0c7b: "Read Authenticated Payload Timeout", 0x0c7c: "Write Authenticated Payload Timeout",
        0x0c7d: "Read Local OOB Extended Data",
        0x1001: "Read Local Version Information", 0x1002: "Read Local Supported Commands",
        0x1003: "Read Local Supported Features", 0x1004: "Read Local Extended Features",
        0x1005: "Read Buffer Size", 0x1009: "Read BD_ADDR", 0x100a: "Read Data Block Size",
        0x100b: "Read Local Supported Codecs", 0x100d: "Read Local Supported Codecs V2",
        0x1401: "Read Failed Contact Counter", 0x1402: "Reset Failed Contact Counter", 0x1403: "Read Link Quality",
        0x1405: "Read RSSI", 0x1406: "Read AFH Channel Map", 0x1407: "Read Clock", 0x1408: "Read Encryption Key Size",
        0x2001: "LE Set Event Mask", 0x2002: "LE Read Buffer Size", 0x2003: "LE Read Local Supported Features",
        0x2005: "LE Set Random Address", 0x2006: "LE Set Advertising Parameters",
        0x2007: "LE Read Advertising Physical Channel Tx Power", 0x2008: "LE Set Advertising Data",
        0x2009: "LE Set Scan Response Data", 0x200a: "LE Set Advertising Enable", 0x200b: "LE Set Scan Parameters",
        0x200c: "LE Set Scan Enable", 0x200d: "LE Create Connection", 0x200e: "LE Create Connection Cancel",
        0x200f: "LE Read Filter Accept List Size", 0x2010: "LE Clear Filter Accept List",
        0x2011: "LE Add Device To Filter Accept List", 0x2012: "LE Remove Device From Filter Accept List",
        0x2013: "LE Connection Update", 0x2014: "LE Set Host Channel Classification", 0x2015: "LE Read Channel Map",
        0x2016: "LE Read Remote Features", 0x2017: "LE Encrypt", 0x2018: "LE Rand", 0x2019: "LE Enable Encryption",
        0x201a: "LE Long Term Key Request Reply", 0x201b: "LE Long Term Key Request Negative Reply",
        0x201c: "LE Read Supported States", 0x201d: "LE Receiver Test", 0x201e: "LE Transmitter Test",
        0x201f: "LE Test End", 0x2020: "LE Remote Connection Parameter Request Reply",
        0x2021: "LE Remote Connection Parameter Request Negative Reply", 0x2022: "LE Set Data Length",
        0x2023: "LE Read Suggested Default Data Length", 0x2024: "LE Write Suggested Default Data Length",
        0x2025: "LE Read Local P-256 Public Key", 0x2026: "LE Generate DHKey",
        0x2027: "LE Add Device To Resolving List", 0x2028: "LE Remove Device From Resolving List",
        0x2029: "LE Clear Resolving List", 0x202a: "LE Read Resolving List Size",
        0x202b: "LE Read Peer Resolvable Address", 0x202c: "LE Read Local Resolvable Address",
        0x202d: "LE Set Address Resolution Enable", 0x202e: "LE Set Resolvable Private Address Timeout",
        0x202f: "LE Read Maximum Data Length", 0x2030: "LE Read PHY", 0x2031: "LE Set Default PHY",
        0x2032: "LE Set PHY", 0x2035: "LE Set Advertising Set Random Address",
        0x2036: "LE Set Extended Advertising Parameters", 0x2037: "LE Set Extended Advertising Data",
        0x2038: "LE Set Extended Scan Response Data", 0x2039: "LE Set Extended Advertising Enable",
        0x203a: "LE Read Maximum Advertising Data Length", 0x203b: "LE Read Number of Supported Advertising Sets",
        0x203c: "LE Remove Advertising Set", 0x203d: "LE Clear Advertising Sets",
        0x203e: "LE Set Periodic Advertising Parameters", 0x203f: "LE Set Periodic Advertising Data",
        0x2040: "LE Set Periodic Advertising Enable", 0x2041: "LE Set Extended Scan Parameters",
        0x2042: "LE Set Extended Scan Enable", 0x2043: "LE Extended Create Connection",
        0x2044: "LE Periodic Advertising Create Sync", 0x2045: "LE Periodic Advertising Create Sync Cancel",
        0x2046: "LE Periodic Advertising Terminate Sync", 0x204a: "LE Read Transmit Power",
        0x204b: "LE Read RF Path Compensation", 0x204c: "LE Write RF Path Compensation",
        0x204e: "LE Set Privacy Mode", 0x2060: "LE Read Buffer Size V2", 0x2074: "LE Set Host Feature",
    ]
}
