import BTLensCrypto
import XCTest

final class AES128Tests: XCTestCase {
    // FIPS-197 Appendix C.1: AES-128 of 00112233…ff under key 000102…0f.
    func testFIPS197() throws {
        let out = AES128.e(try key("000102030405060708090a0b0c0d0e0f"), try key("00112233445566778899aabbccddeeff"))
        XCTAssertEqual(out?.hex, "69c4e0d86a7b0430d8cdb78070b4c55a")
    }

    // Vol 6 Part C §1 (LE encryption sample data): SK = e(LTK, SKDs || SKDm), both most significant first.
    func testSessionKeySample() throws {
        let out = AES128.e(
            try key("4C68384139F574D836BCF34E9DFB01BF"), try key("0213243546576879ACBDCEDFE0F10213"))
        XCTAssertEqual(out?.hex, "99ad1b5226a37e3e058e3b8e27c2c666")
    }
}
