import BTLensCrypto
import XCTest

/// Vol 6 Part C §1, LE encryption sample data: LL_ENC_REQ and LL_ENC_RSP as on air, the session key, and
/// the first two data channel PDUs of each direction with their MICs.
final class LLEncryptionTests: XCTestCase {
    // Opcode, Rand, EDIV, SKDm, IVm; opcode, SKDs, IVs.
    let encReq = octets("03 9078563412efcdab 7424 1302f1e0dfcebdac 24abdcba")
    let encRsp = octets("04 7968574635241302 bebaafde")
    let startEncRsp = octets("06")
    let central1 = octets("1700 63646566676869 6a6b6c6d6e6f7071 31323334353637383930")
    let peripheral1 = octets("1700 3736353433323130 4142434445464748494a4b4c4d4e4f5051")

    func cipher(ltk: String = "4C68384139F574D836BCF34E9DFB01BF") throws -> LLCipher {
        try XCTUnwrap(
            LLCipher(
                ltk: try key(ltk), skdm: encReq[11..<19], ivm: encReq[19..<23], skds: encRsp[1..<9],
                ivs: encRsp[9..<13]))
    }

    func testSessionKey() throws {
        XCTAssertEqual(try cipher().sessionKey.hex, "99ad1b5226a37e3e058e3b8e27c2c666")
    }

    func testSamplePacketsEncrypt() throws {
        let sample = try cipher()
        let encrypt = { (header: UInt8, plain: [UInt8], counter: UInt64, central: Bool) in
            sample.encrypt(header: header, plaintext: plain, counter: counter, fromCentral: central)
        }
        XCTAssertEqual(encrypt(0x0F, startEncRsp, 0, true), octets("9fcda7f448"))
        XCTAssertEqual(encrypt(0x07, startEncRsp, 0, false), octets("a34c13a415"))
        XCTAssertEqual(
            encrypt(0x0E, central1, 1, true),
            octets("7a70d664 15226df2 6b17839a 06040559 6bd6564f 796b5b9c e6ff32f7 5a6d33"))
        XCTAssertEqual(
            encrypt(0x06, peripheral1, 1, false),
            octets("f38881e7 bd94c9c3 69b9a668 46dd4786 aa8c39ce 540d0dae 3adcdf89 b96088"))
    }

    func testSamplePacketsDecrypt() throws {
        let sample = try cipher()
        let decrypt = { (header: UInt8, payload: String, counter: UInt64, central: Bool) in
            sample.decrypt(header: header, payload: octets(payload), counter: counter, fromCentral: central)
        }
        XCTAssertEqual(decrypt(0x0F, "9fcda7f448", 0, true), startEncRsp)
        XCTAssertEqual(decrypt(0x07, "a34c13a415", 0, false), startEncRsp)
        XCTAssertEqual(
            decrypt(0x0E, "7a70d66415226df26b17839a060405596bd6564f796b5b9ce6ff32f75a6d33", 1, true), central1)
        XCTAssertEqual(
            decrypt(0x06, "f38881e7bd94c9c369b9a66846dd4786aa8c39ce540d0dae3adcdf89b96088", 1, false), peripheral1)
    }

    // NESN, SN and MD are not authenticated; LLID and CP are.
    func testHeaderBitsOutsideTheAADDoNotMatter() throws {
        let sample = try cipher()
        let payload = octets("9fcda7f448")
        XCTAssertEqual(sample.decrypt(header: 0x03, payload: payload, counter: 0, fromCentral: true), startEncRsp)
        XCTAssertEqual(sample.decrypt(header: 0x1F, payload: payload, counter: 0, fromCentral: true), startEncRsp)
        XCTAssertNil(sample.decrypt(header: 0x0E, payload: payload, counter: 0, fromCentral: true), "LLID")
        XCTAssertNil(sample.decrypt(header: 0x2F, payload: payload, counter: 0, fromCentral: true), "CP")
    }

    func testWrongKeyCounterOrDirectionFailsTheMIC() throws {
        let payload = octets("9fcda7f448")
        let wrong = try cipher(ltk: "4C68384139F574D836BCF34E9DFB01BE")
        XCTAssertNil(wrong.decrypt(header: 0x0F, payload: payload, counter: 0, fromCentral: true))
        let sample = try cipher()
        XCTAssertNil(sample.decrypt(header: 0x0F, payload: payload, counter: 1, fromCentral: true))
        XCTAssertNil(sample.decrypt(header: 0x0F, payload: payload, counter: 0, fromCentral: false))
        XCTAssertNil(sample.decrypt(header: 0x0F, payload: octets("9fcda7f449"), counter: 0, fromCentral: true))
    }

    func testMalformedInputsAreRefused() throws {
        let sample = try cipher()
        for size in 0..<4 {
            let payload = [UInt8](repeating: 0, count: size)
            XCTAssertNil(sample.decrypt(header: 0x0F, payload: payload, counter: 0, fromCentral: true))
        }
        let long = [UInt8](repeating: 0, count: 256)
        XCTAssertNil(sample.decrypt(header: 0x02, payload: long, counter: 0, fromCentral: true))
        XCTAssertNil(sample.encrypt(header: 0x02, plaintext: long.prefix(252), counter: 0, fromCentral: true))
        XCTAssertEqual(
            sample.encrypt(header: 0x02, plaintext: long.prefix(251), counter: 0, fromCentral: true)?.count, 255)
        XCTAssertNil(sample.encrypt(header: 0x0F, plaintext: startEncRsp, counter: 1 << 39, fromCentral: true))
        XCTAssertNil(sample.decrypt(header: 0x0F, payload: octets("9fcda7f448"), counter: .max, fromCentral: true))
        XCTAssertNil(
            LLCipher(ltk: Key128(0), skdm: encReq[11..<18], ivm: encReq[19..<23], skds: encRsp[1..<9], ivs: []))
    }

    // A full-size payload (16 blocks) comes back through decrypt, the largest counter included.
    func testRoundTripOfALongPayload() throws {
        let sample = try cipher()
        let plain = (0..<251).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let counter: UInt64 = (1 << 39) - 1
        let sealed = try XCTUnwrap(sample.encrypt(header: 0x02, plaintext: plain, counter: counter, fromCentral: false))
        XCTAssertEqual(sample.decrypt(header: 0x02, payload: sealed, counter: counter, fromCentral: false), plain)
    }
}
