import BTLensCore
import XCTest

@testable import BTLensDissect

/// Hex vectors for HCI packets (Core Specification, Vol 4, Part E, §7).
final class HCIDecoderTests: XCTestCase {
    func event(_ hex: String, truncated: Bool = false) -> HCIDecoded<HCIEventInfo>? {
        HCIDecoder.event((Hex.bytes(hex) ?? [])[...], truncated: truncated)
    }

    func testNamesAndUnknownCodes() {
        XCTAssertEqual(HCIOpcode(rawValue: 0x200c).description, "LE Set Scan Enable (0x200c)")
        XCTAssertEqual(HCIOpcode(rawValue: 0xfc22).description, "Vendor (0xfc22)")
        XCTAssertEqual(HCIOpcode(rawValue: 0x2099).name, "Unknown (0x2099)")
        XCTAssertEqual(HCIOpcode(rawValue: 0xf422).description, "BTstack daemon (0xf422)")
        XCTAssertEqual(HCIEventCode(rawValue: 0x42).name, "Unknown (0x42)")
        XCTAssertEqual(HCIErrorCode(rawValue: 0x08).name, "Connection Timeout")
        XCTAssertEqual(HCIErrorCode(rawValue: 0x3d).name, "Connection Terminated due to MIC Failure")
    }

    func testLEConnectionComplete() {
        // LE Meta (0x3e), subevent 0x01: status 0, handle 0x0040, role 0 (central), peer type 0,
        // peer AA:BB:CC:11:22:33, interval 0x0018 (30 ms), latency 0, timeout 0x01f4, accuracy 0.
        let d = event("3e 13 01 00 40 00 00 00 33 22 11 cc bb aa 18 00 00 00 f4 01 00")
        guard
            case .completed(let status, let handle, let address, _, let transport, let role, let parameters)? = d?
                .effect
        else {
            return XCTFail("no connection")
        }
        XCTAssertEqual(parameters, Lifecycle.Parameters(interval: 0x18, latency: 0, timeout: 0x1f4))
        XCTAssertEqual(parameters?.timeoutMilliseconds, 5000)
        XCTAssertEqual([status.rawValue], [0])
        XCTAssertEqual(handle, 0x40)
        XCTAssertEqual(address.description, "AA:BB:CC:11:22:33")
        XCTAssertEqual(transport, .le)
        XCTAssertEqual(role, .central)
        XCTAssertEqual(d?.diagnostics.count, 0)
    }

    func testBREDRConnectionAndDisconnection() {
        // Connection Complete: status 0, handle 0x000b, address, link type 1 (ACL), encryption 0.
        guard
            case .completed(_, 0x000b, _, _, .bredr, _, nil)? = event("03 0b 00 0b 00 a5 bc 64 6b 18 00 01 00")?.effect
        else {
            return XCTFail("no BR/EDR connection")
        }
        // Link type 0 (SCO) opens no ACL connection.
        XCTAssertNil(event("03 0b 00 0c 00 a5 bc 64 6b 18 00 00 00")?.effect)
        // Disconnection Complete: status 0, handle 0x000b, reason 0x13.
        guard case .disconnected(_, 0x000b, let reason)? = event("05 04 00 0b 00 13")?.effect else {
            return XCTFail("no disconnection")
        }
        XCTAssertEqual(reason.name, "Remote User Terminated Connection")
    }

    func testCommandCompleteNamesItsCommand() {
        let d = event("0e 04 01 03 0c 00")
        XCTAssertEqual(d?.info.fields.first?.1, .string("Reset"))
    }

    func testRemoteNameRequestCompleteGivesTheName() {
        // §7.7.7: status 0, address AA:BB:CC:11:22:33, name "Car" and its NUL, the rest of 248 zeros.
        let name = "Car".utf8.map { Hex.string([$0]) }.joined(separator: " ")
        let ok = event("07 ff 00 33 22 11 cc bb aa \(name)" + String(repeating: " 00", count: 245))
        XCTAssertEqual(ok?.info.fields.map(\.0), ["status", "address", "remote_name"])
        XCTAssertEqual(ok?.info.fields.last?.1, .string("Car"))
        XCTAssertEqual(ok?.diagnostics.count, 0)
        // After an error, no name; cut short in the name, what is there.
        XCTAssertEqual(event("07 07 04 33 22 11 cc bb aa")?.info.fields.map(\.0), ["status", "address"])
        XCTAssertEqual(
            event("07 ff 00 33 22 11 cc bb aa 43 61", truncated: true)?.info.fields.last?.1, .string("Ca"))
        XCTAssertEqual(event("07 03 00 33 22")?.diagnostics.map(\.id), ["hci.malformed"])
    }

    func testLocalNameIsReadFromItsCommandAndCompletion() {
        // §7.3.11 Write Local Name "Pi" and its NUL (padding left out); §7.3.12 Read Local Name's
        // completion: 1 free slot, opcode 0x0c14, status 0, the name.
        let write = HCIDecoder.command([0x13, 0x0c, 0x03, 0x50, 0x69, 0x00][...], truncated: false)
        XCTAssertEqual(write?.info.fields.last?.1, .string("Pi"))
        XCTAssertEqual(write?.info.fields.map(\.0), ["local_name"])
        XCTAssertEqual(event("0e 06 01 14 0c 00 50 69")?.info.fields.last?.1, .string("Pi"))
        XCTAssertEqual(event("0e 06 01 14 0c 00 50 69")?.info.fields.last?.0, "local_name")
        // Write Local Name's completion has no name; nor has a failed read, nor the Read Local Name command.
        XCTAssertEqual(event("0e 04 01 13 0c 00")?.info.fields.map(\.0), ["command", "opcode", "status"])
        XCTAssertEqual(event("0e 04 01 14 0c 01")?.info.fields.map(\.0), ["command", "opcode", "status"])
        XCTAssertEqual(HCIDecoder.command([0x14, 0x0c, 0x00][...], truncated: false)?.info.fields.count, 0)
    }

    func testMalformedAndLengthMismatch() {
        XCTAssertNil(event("05"))
        XCTAssertEqual(event("05 04 00 0b")?.diagnostics.map(\.id), ["hci.length_mismatch", "hci.malformed"])
        XCTAssertEqual(event("05 02 00 0b 00")?.diagnostics.map(\.id), ["hci.length_mismatch", "hci.malformed"])
        XCTAssertEqual(event("05 04 00 0b", truncated: true)?.diagnostics.map(\.id), ["hci.malformed"])
        XCTAssertNil(HCIDecoder.command([0x03, 0x0c][...], truncated: false))
        XCTAssertEqual(
            HCIDecoder.command([0x06, 0x04, 0x03, 0x40, 0x00, 0x13][...], truncated: false)?.info.fields.map(\.0),
            ["handle", "reason"])
    }
}
