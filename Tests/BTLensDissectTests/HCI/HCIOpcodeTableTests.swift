import BTLensCore
import XCTest

@testable import BTLensDissect

/// The opcode table against lists written from the Core Specification (v5.4, Vol 4, Part E): each
/// OCF with its command's name, so that a name shifted by one shows.
final class HCIOpcodeTableTests: XCTestCase {
    /// §7.8, the LE Controller commands (OGF 0x08) by OCF; "V2" and so on for a command's later
    /// versions. OCF 0x0004, 0x0080 and 0x0081 are none of Core 5.4's.
    static let leCommands: [UInt16: String] = [
        0x01: "LE Set Event Mask", 0x02: "LE Read Buffer Size", 0x03: "LE Read Local Supported Features",
        0x05: "LE Set Random Address", 0x06: "LE Set Advertising Parameters",
        0x07: "LE Read Advertising Physical Channel Tx Power", 0x08: "LE Set Advertising Data",
        0x09: "LE Set Scan Response Data", 0x0a: "LE Set Advertising Enable", 0x0b: "LE Set Scan Parameters",
        0x0c: "LE Set Scan Enable", 0x0d: "LE Create Connection", 0x0e: "LE Create Connection Cancel",
        0x0f: "LE Read Filter Accept List Size", 0x10: "LE Clear Filter Accept List",
        0x11: "LE Add Device To Filter Accept List", 0x12: "LE Remove Device From Filter Accept List",
        0x13: "LE Connection Update", 0x14: "LE Set Host Channel Classification", 0x15: "LE Read Channel Map",
        0x16: "LE Read Remote Features", 0x17: "LE Encrypt", 0x18: "LE Rand", 0x19: "LE Enable Encryption",
        0x1a: "LE Long Term Key Request Reply", 0x1b: "LE Long Term Key Request Negative Reply",
        0x1c: "LE Read Supported States", 0x1d: "LE Receiver Test", 0x1e: "LE Transmitter Test",
        0x1f: "LE Test End", 0x20: "LE Remote Connection Parameter Request Reply",
        0x21: "LE Remote Connection Parameter Request Negative Reply", 0x22: "LE Set Data Length",
        0x23: "LE Read Suggested Default Data Length", 0x24: "LE Write Suggested Default Data Length",
        0x25: "LE Read Local P-256 Public Key", 0x26: "LE Generate DHKey", 0x27: "LE Add Device To Resolving List",
        0x28: "LE Remove Device From Resolving List", 0x29: "LE Clear Resolving List",
        0x2a: "LE Read Resolving List Size", 0x2b: "LE Read Peer Resolvable Address",
        0x2c: "LE Read Local Resolvable Address", 0x2d: "LE Set Address Resolution Enable",
        0x2e: "LE Set Resolvable Private Address Timeout", 0x2f: "LE Read Maximum Data Length",
        0x30: "LE Read PHY", 0x31: "LE Set Default PHY", 0x32: "LE Set PHY", 0x33: "LE Receiver Test V2",
        0x34: "LE Transmitter Test V2", 0x35: "LE Set Advertising Set Random Address",
        0x36: "LE Set Extended Advertising Parameters", 0x37: "LE Set Extended Advertising Data",
        0x38: "LE Set Extended Scan Response Data", 0x39: "LE Set Extended Advertising Enable",
        0x3a: "LE Read Maximum Advertising Data Length", 0x3b: "LE Read Number of Supported Advertising Sets",
        0x3c: "LE Remove Advertising Set", 0x3d: "LE Clear Advertising Sets",
        0x3e: "LE Set Periodic Advertising Parameters", 0x3f: "LE Set Periodic Advertising Data",
        0x40: "LE Set Periodic Advertising Enable", 0x41: "LE Set Extended Scan Parameters",
        0x42: "LE Set Extended Scan Enable", 0x43: "LE Extended Create Connection",
        0x44: "LE Periodic Advertising Create Sync", 0x45: "LE Periodic Advertising Create Sync Cancel",
        0x46: "LE Periodic Advertising Terminate Sync",
        // §7.8.70-§7.8.77: where the table was one off (0x204A named LE Read Transmit Power).
        0x47: "LE Add Device To Periodic Advertiser List", 0x48: "LE Remove Device From Periodic Advertiser List",
        0x49: "LE Clear Periodic Advertiser List", 0x4a: "LE Read Periodic Advertiser List Size",
        0x4b: "LE Read Transmit Power", 0x4c: "LE Read RF Path Compensation", 0x4d: "LE Write RF Path Compensation",
        0x4e: "LE Set Privacy Mode", 0x4f: "LE Receiver Test V3", 0x50: "LE Transmitter Test V3",
        0x51: "LE Set Connectionless CTE Transmit Parameters", 0x52: "LE Set Connectionless CTE Transmit Enable",
        0x53: "LE Set Connectionless IQ Sampling Enable", 0x54: "LE Set Connection CTE Receive Parameters",
        0x55: "LE Set Connection CTE Transmit Parameters", 0x56: "LE Connection CTE Request Enable",
        0x57: "LE Connection CTE Response Enable", 0x58: "LE Read Antenna Information",
        0x59: "LE Set Periodic Advertising Receive Enable", 0x5a: "LE Periodic Advertising Sync Transfer",
        0x5b: "LE Periodic Advertising Set Info Transfer",
        0x5c: "LE Set Periodic Advertising Sync Transfer Parameters",
        0x5d: "LE Set Default Periodic Advertising Sync Transfer Parameters", 0x5e: "LE Generate DHKey V2",
        0x5f: "LE Modify Sleep Clock Accuracy", 0x60: "LE Read Buffer Size V2", 0x61: "LE Read ISO TX Sync",
        0x62: "LE Set CIG Parameters", 0x63: "LE Set CIG Parameters Test", 0x64: "LE Create CIS",
        0x65: "LE Remove CIG", 0x66: "LE Accept CIS Request", 0x67: "LE Reject CIS Request", 0x68: "LE Create BIG",
        0x69: "LE Create BIG Test", 0x6a: "LE Terminate BIG", 0x6b: "LE BIG Create Sync",
        0x6c: "LE BIG Terminate Sync", 0x6d: "LE Request Peer SCA", 0x6e: "LE Setup ISO Data Path",
        0x6f: "LE Remove ISO Data Path", 0x70: "LE ISO Transmit Test", 0x71: "LE ISO Receive Test",
        0x72: "LE ISO Read Test Counters", 0x73: "LE ISO Test End", 0x74: "LE Set Host Feature",
        0x75: "LE Read ISO Link Quality", 0x76: "LE Enhanced Read Transmit Power Level",
        0x77: "LE Read Remote Transmit Power Level", 0x78: "LE Set Path Loss Reporting Parameters",
        0x79: "LE Set Path Loss Reporting Enable", 0x7a: "LE Set Transmit Power Reporting Enable",
        0x7b: "LE Transmitter Test V4", 0x7c: "LE Set Data Related Address Changes", 0x7d: "LE Set Default Subrate",
        0x7e: "LE Subrate Request", 0x7f: "LE Set Extended Advertising Parameters V2",
        0x82: "LE Set Periodic Advertising Subevent Data", 0x83: "LE Set Periodic Advertising Response Data",
        0x84: "LE Set Periodic Sync Subevent", 0x85: "LE Extended Create Connection V2",
        0x86: "LE Set Periodic Advertising Parameters V2",
    ]

    func testEveryLECommandHasItsSpecificationName() {
        var wrong: [String] = []
        for ocf in UInt16(0)...0x3ff {
            let opcode = HCIOpcode(rawValue: 0x08 << 10 | ocf)
            let want = Self.leCommands[ocf] ?? "Unknown (\(Hex.value(opcode.rawValue, width: 4)))"
            if opcode.name != want { wrong.append("\(Hex.value(opcode.rawValue, width: 4)): \(opcode.name)") }
        }
        XCTAssertEqual(wrong, [])
    }

    /// §7.3, the last Controller & Baseband commands of Core 5.4 (OCF 0x007E-0x0084).
    func testTheLatestControllerAndBasebandCommands() {
        let names: [UInt16: String] = [
            0x0c7e: "Read Extended Page Timeout", 0x0c7f: "Write Extended Page Timeout",
            0x0c80: "Read Extended Inquiry Length", 0x0c81: "Write Extended Inquiry Length",
            0x0c82: "Set Ecosystem Base Interval", 0x0c83: "Configure Data Path",
            0x0c84: "Set Min Encryption Key Size", 0x0c85: "Unknown (0x0c85)",
        ]
        for (raw, name) in names { XCTAssertEqual(HCIOpcode(rawValue: raw).name, name) }
        // Set Min Encryption Key Size: at least 7 octets.
        let d = HCIDecoder.command((Hex.bytes("84 0c 01 07") ?? [])[...], truncated: false)
        XCTAssertEqual(shown(d?.info.fields), ["min_encryption_key_size=7"])
    }

    /// A decoder goes with the command it reads, not with its neighbour's opcode.
    func testTheReadPeriodicAdvertiserListSizeReturnsItsSize() {
        // Command Complete of 0x204A: success, list size 8.
        let d = HCIDecoder.event((Hex.bytes("0e 05 01 4a 20 00 08") ?? [])[...], truncated: false)
        XCTAssertEqual(shown(d?.info.fields).suffix(2), ["status=Success", "list_size=8"])
        XCTAssertEqual(
            shown(HCIDecoder.event((Hex.bytes("0e 06 01 4b 20 00 ec 08") ?? [])[...], truncated: false)?.info.fields)
                .suffix(2), ["min_tx_power=-20", "max_tx_power=8"], "LE Read Transmit Power's returns are its own")
    }
}
