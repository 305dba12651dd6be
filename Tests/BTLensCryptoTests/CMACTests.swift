import BTLensCrypto
import XCTest

final class CMACTests: XCTestCase {
    // RFC 4493 §4: the four examples under K = 2b7e1516 28aed2a6 abf71588 09cf4f3c.
    func testRFC4493() throws {
        let k = try key("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let message = octets(
            "6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51"
                + "30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710")
        XCTAssertEqual(AESCMAC.mac(key: k, message: [])?.hex, "bb1d6929e95937287fa37d129b756746")
        XCTAssertEqual(AESCMAC.mac(key: k, message: message.prefix(16))?.hex, "070a16b46b4d4144f79bdd9dd04a287c")
        XCTAssertEqual(AESCMAC.mac(key: k, message: message.prefix(40))?.hex, "dfa66747de9ae63030ca32611497c827")
        XCTAssertEqual(AESCMAC.mac(key: k, message: message)?.hex, "51f0bebf7e3b9d92fc49741779363cfe")
    }
}
