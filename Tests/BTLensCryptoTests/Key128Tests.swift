import BTLensCrypto
import XCTest

final class Key128Tests: XCTestCase {
    func testByteOrders() throws {
        let value = try key("0x4C683841 39F574D8 36BCF34E 9DFB01BF")
        XCTAssertEqual(value.value, 0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF)
        XCTAssertEqual(value.bigEndian, octets("4C68384139F574D836BCF34E9DFB01BF"))
        XCTAssertEqual(value.littleEndian, octets("BF01FB9D4EF3BC36D874F5394138684C"))
        XCTAssertEqual(Key128(littleEndian: value.littleEndian), value)
        XCTAssertEqual(Key128(bigEndian: value.bigEndian), value)
        XCTAssertEqual(value.hex, "4c68384139f574d836bcf34e9dfb01bf")
    }

    func testWrongSizesAndDigitsAreRefused() {
        XCTAssertNil(Key128(littleEndian: [UInt8](repeating: 0, count: 15)))
        XCTAssertNil(Key128(bigEndian: [UInt8](repeating: 0, count: 17)))
        XCTAssertNil(Key128(hex: "4C68384139F574D836BCF34E9DFB01B"))
        XCTAssertNil(Key128(hex: "4C68384139F574D836BCF34E9DFB01BG"))
        XCTAssertNil(Key128(hex: ""))
        XCTAssertNil(Key256(littleEndian: [UInt8](repeating: 0, count: 31)))
        XCTAssertNil(Key256(hex: String(repeating: "0", count: 63)))
    }

    func testKey256ByteOrders() throws {
        let value = try key256("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
        XCTAssertEqual(value.high, 0x20B0_03D2_F297_BE2C_5E2C_83A7_E9F9_A5B9)
        XCTAssertEqual(value.littleEndian.first, 0xE6)
        XCTAssertEqual(Key256(littleEndian: value.littleEndian), value)
    }
}
