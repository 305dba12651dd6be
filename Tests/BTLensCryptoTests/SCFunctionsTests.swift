import BTLensCrypto
import XCTest

/// Vol 3 Part H Appendix D: the sample data of f4, f5, f6, g2, h6 and h7, most significant octet first.
final class SCFunctionsTests: XCTestCase {
    let u = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    let v = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    let n1 = "d5cb8454 d177733e ffffb2ec 712baeab"
    let n2 = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    let dhKey = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"
    let a1 = PairingAddress(type: 0, address: 0x5612_3737_BFCE)
    let a2 = PairingAddress(type: 0, address: 0xA713_702D_CFC1)

    func testF4() throws {
        let out = SecurityFunctions.f4(u: try key256(u), v: try key256(v), x: try key(n1), z: 0)
        XCTAssertEqual(out?.hex, "f2c916f107a9bd1cf1eda1bea974872d")
    }

    func testF5() throws {
        let out = SecurityFunctions.f5(
            w: try key256(dhKey), n1: try key(n1), n2: try key(n2), a1: try XCTUnwrap(a1), a2: try XCTUnwrap(a2))
        XCTAssertEqual(out?.macKey.hex, "2965f176a1084a02fd3f6a20ce636e20")
        XCTAssertEqual(out?.ltk.hex, "6986791169d7cd23980522b594750a38")
    }

    func testF6() throws {
        let out = SecurityFunctions.f6(
            w: try key("2965f176 a1084a02 fd3f6a20 ce636e20"), n1: try key(n1), n2: try key(n2),
            r: try key("12a3343b b453bb54 08da42d2 0c2d0fc8"), ioCap: 0x01_0102,
            a1: try XCTUnwrap(a1), a2: try XCTUnwrap(a2))
        XCTAssertEqual(out?.hex, "e3c473989cd0e8c5d26c0b09da958f61")
    }

    func testG2() throws {
        let out = SecurityFunctions.g2(u: try key256(u), v: try key256(v), x: try key(n1), y: try key(n2))
        XCTAssertEqual(out, 0x2F9E_D5BA)
    }

    func testH6() throws {
        let out = SecurityFunctions.h6(w: try key("ec0234a3 57c8ad05 341010a6 0a397d9b"), keyID: 0x6C65_6272)
        XCTAssertEqual(out?.hex, "2d9ae102e76dc91ce8d3a9e280b16399")
    }

    func testH7() throws {
        let out = SecurityFunctions.h7(
            salt: try key("00000000 00000000 00000000 746D7031"), w: try key("ec0234a3 57c8ad05 341010a6 0a397d9b"))
        XCTAssertEqual(out?.hex, "fb173597c6a3c0ecd2998c2a75a57011")
    }
}
