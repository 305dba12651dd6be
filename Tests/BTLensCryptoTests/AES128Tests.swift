import BTLensCrypto
import XCTest

final class AES128Tests: XCTestCase {
    // FIPS-197 Appendix C.1: AES-128 of 00112233…ff under key 000102…0f.
    func testFIPS197() {
        let key = (0..<16).map { UInt8($0) }
        let plain = (0..<16).map { UInt8($0 * 0x11) }
        let out = AES128.encrypt(key: key, plain)
        XCTAssertEqual(out.map { String(format: "%02x", $0) }.joined(), "69c4e0d86a7b0430d8cdb78070b4c55a")
    }
}
