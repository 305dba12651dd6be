import BTLensCore
import XCTest

@testable import BTLensDissect

/// The CIDs of credit-based connection and reconfiguration commands as numbers (Core Vol 3 Part A
/// §4.22–§4.27): their fields list several as text.
final class CreditCommandCIDTests: XCTestCase {
    func cids(_ hex: String, _ direction: Direction = .sent) -> [UInt16]? {
        var map = L2CAPChannelMap()
        let out = map.decode(
            (Hex.bytes(hex) ?? [])[...], connection: ConnectionKey(index: 0, handle: 0x40), direction: direction,
            at: RecordPlace(record: 1, time: Timestamp(microseconds: 0)))
        XCTAssertEqual(out.diagnostics.count, 0, hex)
        return out.commands.first?.creditCIDs
    }

    func testCreditBasedCommandsGiveTheirCIDs() {
        // §4.22 LE Credit Based Connection Request: SPSM 0x0080, source CID 0x0040, MTU 512, MPS 247, 10 credits.
        XCTAssertEqual(cids("14 01 0a 00 80 00 40 00 00 02 f7 00 0a 00"), [0x0040])
        // §4.23 its response: destination CID 0x0041, MTU 512, MPS 247, 10 credits, success.
        XCTAssertEqual(cids("15 01 0a 00 41 00 00 02 f7 00 0a 00 00 00", .received), [0x0041])
        // Refused (result 0x0004, no resources): no channel, CID 0.
        XCTAssertEqual(cids("15 01 0a 00 41 00 00 02 f7 00 0a 00 04 00", .received), [0])
        // §4.25 Credit Based Connection Request: SPSM 0x0027 (EATT), MTU 512, MPS 247, 10 credits,
        // source CIDs 0x0040 and 0x0041.
        XCTAssertEqual(cids("17 02 0c 00 27 00 00 02 f7 00 0a 00 40 00 41 00"), [0x0040, 0x0041])
        // §4.26 its response: MTU 512, MPS 247, 10 credits, success, destination CIDs 0x0042, 0x0043.
        XCTAssertEqual(cids("18 02 0c 00 00 02 f7 00 0a 00 00 00 42 00 43 00", .received), [0x0042, 0x0043])
        // §4.27 Credit Based Reconfigure Request: MTU 512, MPS 247, destination CIDs 0x0040, 0x0041.
        XCTAssertEqual(cids("19 03 08 00 00 02 f7 00 40 00 41 00"), [0x0040, 0x0041])
    }

    func testOtherCommandsGiveNone() {
        // §4.2 Connection Request: PSM 0x0001 (SDP), source CID 0x0040: its CID is a field's number.
        XCTAssertEqual(cids("02 04 04 00 01 00 40 00"), [])
        // §4.4 Configuration Request with an MPS (Retransmission and Flow Control option): no credits.
        XCTAssertEqual(cids("04 05 0f 00 40 00 00 00 04 09 03 0a 03 d0 07 e0 2e f2 03"), [])
    }
}
