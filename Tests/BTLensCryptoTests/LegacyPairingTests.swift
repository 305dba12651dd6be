import BTLensCrypto
import XCTest

/// The TK search over the PDUs of Vol 3 Part H §2.2.3's c1 example, as they appear on air.
final class LegacyPairingTests: XCTestCase {
    let mrand = onAir("5783D52156AD6F0E6388274EC6702EE0")

    func pairing(initiatorType: UInt8 = 1) throws -> LegacyPairing {
        try XCTUnwrap(
            LegacyPairing(
                pairingRequest: octets("01010000100707"), pairingResponse: octets("02030000080005"),
                initiatorType: initiatorType, initiator: onAir("A1A2A3A4A5A6"),
                responderType: 0, responder: onAir("B1B2B3B4B5B6")))
    }

    // §2.2.3's example has k = 0: Just Works.
    func testJustWorksFromTheSpecExample() throws {
        let confirm = onAir("1e1e3fef878988ead2a74dc5bef13b86")
        XCTAssertEqual(try pairing().findTK(rand: mrand, confirm: confirm), 0)
        XCTAssertEqual(try pairing().confirm(tk: 0, rand: mrand), confirm)
    }

    // Confirm values for passkeys 123456 and 999999 over the same PDUs, computed independently
    // (Python, the cryptography package's AES) from §2.2.3's formula.
    func testPasskeys() throws {
        let confirm123456 = onAir("e291fa937ed0b3fe22dc3712484e7acf")
        XCTAssertEqual(try pairing().confirm(tk: 123_456, rand: mrand), confirm123456)
        XCTAssertEqual(try pairing().findTK(rand: mrand, confirm: confirm123456), 123_456)
    }

    // The last passkey tried: the search's worst case.
    func testWorstCasePasskey() throws {
        let confirm = onAir("9764e4095e4656f946d1713e117e0cfc")
        XCTAssertEqual(try pairing().findTK(rand: mrand, confirm: confirm), 999_999)
    }

    func testNoTKWhenTheAddressTypeDiffers() throws {
        let confirm = onAir("1e1e3fef878988ead2a74dc5bef13b86")
        XCTAssertNil(try pairing(initiatorType: 0).findTK(rand: mrand, confirm: confirm))
    }

    func testMalformedInputsAreRefused() throws {
        let request = octets("01010000100707")
        let response = octets("02030000080005")
        let address = onAir("A1A2A3A4A5A6")
        let make = { (req: [UInt8], rsp: [UInt8], type: UInt8, initiator: [UInt8]) in
            LegacyPairing(
                pairingRequest: req, pairingResponse: rsp, initiatorType: type, initiator: initiator,
                responderType: 0, responder: address)
        }
        XCTAssertNil(make(response, request, 0, address), "codes swapped")
        XCTAssertNil(make(Array(request.prefix(6)), response, 0, address))
        XCTAssertNil(make(request, response, 2, address))
        XCTAssertNil(make(request, response, 0, Array(address.prefix(5))))
        XCTAssertNil(try pairing().findTK(rand: mrand.prefix(15), confirm: mrand))
        XCTAssertNil(try pairing().confirm(tk: 0, rand: []))
        XCTAssertNil(LegacyPairing.stk(tk: 0, srand: mrand, mrand: mrand.dropLast()))
    }

    // STK = s1(TK, Srand, Mrand) with §2.2.4's example values as Pairing Random PDUs carry them.
    func testSTK() {
        let stk = LegacyPairing.stk(
            tk: 0, srand: onAir("000F0E0D0C0B0A091122334455667788"), mrand: onAir("010203040506070899AABBCCDDEEFF00"))
        XCTAssertEqual(stk?.hex, "9a1fe1f0e8b0f49b5b4216ae796da062")
    }
}
