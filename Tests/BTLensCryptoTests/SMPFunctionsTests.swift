import BTLensCrypto
import XCTest

final class SMPFunctionsTests: XCTestCase {
    // Vol 3 Part H §2.2.3: the c1 example (k = 0, iat = 1, rat = 0), PDUs and addresses as on air.
    func testC1Example() throws {
        let out = SecurityFunctions.c1(
            k: Key128(0), r: try key("5783D52156AD6F0E6388274EC6702EE0"),
            preq: try XCTUnwrap(PairingFeatures(pdu: octets("01010000100707"))),
            pres: try XCTUnwrap(PairingFeatures(pdu: octets("02030000080005"))),
            initiator: try XCTUnwrap(PairingAddress(type: 1, address: 0xA1A2_A3A4_A5A6)),
            responder: try XCTUnwrap(PairingAddress(type: 0, address: 0xB1B2_B3B4_B5B6)))
        XCTAssertEqual(out?.hex, "1e1e3fef878988ead2a74dc5bef13b86")
    }

    // Vol 3 Part H §2.2.4: the s1 example, r' = 1122334455667788 99AABBCCDDEEFF00.
    func testS1Example() throws {
        let out = SecurityFunctions.s1(
            k: Key128(0), r1: try key("000F0E0D0C0B0A091122334455667788"),
            r2: try key("010203040506070899AABBCCDDEEFF00"))
        XCTAssertEqual(out?.hex, "9a1fe1f0e8b0f49b5b4216ae796da062")
    }

    // Vol 3 Part H Appendix D: ah with IRK ec0234a3…, prand 0x708194.
    func testAh() throws {
        XCTAssertEqual(SecurityFunctions.ah(k: try key("ec0234a3 57c8ad05 341010a6 0a397d9b"), r: 0x70_8194), 0x0D_FBAA)
    }

    func testAddressesAndFeatures() {
        XCTAssertEqual(PairingAddress(type: 1, littleEndian: octets("A6A5A4A3A2A1"))?.address, 0xA1A2_A3A4_A5A6)
        XCTAssertNil(PairingAddress(type: 2, littleEndian: octets("A6A5A4A3A2A1")))
        XCTAssertNil(PairingAddress(type: 0, littleEndian: octets("A6A5A4A3A2")))
        XCTAssertNil(PairingAddress(type: 0, address: 1 << 48))
        XCTAssertEqual(PairingFeatures(pdu: octets("01010000100707"))?.value, 0x07_0710_0000_0101)
        XCTAssertNil(PairingFeatures(pdu: octets("010100001007")))
    }
}
