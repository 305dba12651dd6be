import BTLensCore
import XCTest

@testable import BTLensDissect

/// What the HCI layer says must be true: no failure invented for a cancelled attempt or a failed
/// command's short return parameters, numbers as numbers, every opcode named.
final class HCITruthTests: XCTestCase {
    func event(_ hex: String) -> HCIDecoded<HCIEventInfo>? {
        HCIDecoder.event((Hex.bytes(hex) ?? [])[...], truncated: false)
    }

    func testAFailedCommandsMissingReturnParametersAreNormalForEveryOpcode() {
        // Command Complete (0x0e), 1 slot, LE Read Buffer Size (0x2002), status 0x01 and nothing else:
        // after an error only the status need be returned (Core Vol 4 Part E §4.5).
        let buffer = event("0e 04 01 02 20 01")
        XCTAssertEqual(buffer?.diagnostics.map(\.id), [])
        XCTAssertEqual(buffer?.info.fields.map(\.0), ["command", "opcode", "status"])
        XCTAssertNil(buffer?.effect)
        // Write Link Policy Settings (0x080d), status 0x02, the handle missing: the same rule.
        XCTAssertEqual(event("0e 04 01 0d 08 02")?.diagnostics.map(\.id), [])
        // A success whose return parameters are cut is still malformed: LE Read Buffer Size needs 3 more bytes.
        XCTAssertEqual(event("0e 05 01 02 20 00 fb")?.diagnostics.map(\.id), ["hci.malformed"])
    }

    func testNoOperationIsNamedAndHasNoStatus() {
        XCTAssertEqual(HCIOpcode(rawValue: 0x0000).description, "No Operation (0x0000)")
        // Command Complete for No Operation (§7.7.14): a controller telling the host it takes 5 commands.
        let d = event("0e 03 05 00 00")
        XCTAssertEqual(d?.info.fields.map(\.0), ["command", "opcode"])
        XCTAssertEqual(d?.diagnostics.count, 0)
    }

    func testConnectionIntervalIsANumber() {
        // LE Connection Update Complete (subevent 0x03): status 0, handle 0x0040, interval 0x001e (37.50 ms).
        let d = event("3e 0a 03 00 40 00 1e 00 00 00 f4 01")
        XCTAssertEqual(d?.info.fields.first { $0.0 == "interval_ms" }?.1, .decimal(3750, scale: 2))
        XCTAssertEqual(FieldValue.decimalText(3750, scale: 2), "37.50")
        XCTAssertEqual(FieldValue.decimalText(-5, scale: 2), "-0.05")
        XCTAssertEqual(FieldValue.decimalText(7, scale: 0), "7")
    }

    func testARefusedCancelIsItsEffect() {
        // Command Complete for LE Create Connection Cancel (0x200e), status 0x0c Command Disallowed.
        guard case .cancelRefused? = event("0e 04 01 0e 20 0c")?.effect else { return XCTFail("no refusal") }
        XCTAssertNil(event("0e 04 01 0e 20 00")?.effect, "a successful cancel changes nothing until the completion")
    }

    func testCancelCommandsAreTheirEffect() {
        for opcode in ["08 04 06 33 22 11 cc bb aa", "0e 20 00"] {
            guard case .hostCancels? = HCIDecoder.command((Hex.bytes(opcode) ?? [])[...], truncated: false)?.effect
            else {
                return XCTFail(opcode)
            }
        }
    }
}
