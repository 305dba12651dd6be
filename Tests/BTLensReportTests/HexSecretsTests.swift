import XCTest

@testable import BTLensReport

/// `--redact` finds a secret's bytes however a dump, a parameter or an app log writes them as hex.
final class HexSecretsTests: XCTestCase {
    func secrets() -> HexSecrets {
        var s = HexSecrets()
        // "AX2-0042-7781" and an address in wire order.
        s.add(Array("AX2-0042-7781".utf8), "[serial 1]")
        s.add([0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa], "[address 1]")
        // Too short to find by chance: not looked for.
        s.add([0x41, 0x42, 0x43], "[name 9]")
        return s
    }

    func testEveryWayOfWritingTheBytesIsReplaced() {
        let s = secrets()
        let serial = "4158322d303034322d37373831"
        let cases = [
            ("3:\(serial)00", "3:[serial 1]00"),
            ("3:\(serial.uppercased())00", "3:[serial 1]00"),
            ("41 58 32 2d 30 30 34 32 2d 37 37 38 31 00", "[serial 1] 00"),
            ("41:58:32:2D:30:30:34:32:2D:37:37:38:31", "[serial 1]"),
            ("41-58-32-2d-30-30-34-32-2d-37-37-38-31!", "[serial 1]!"),
            // After a hex word, so the secret starts at an odd digit.
            ("added\(serial)", "added[serial 1]"),
            ("tx 33 22 11 cc bb aa and aabbcc112233", "tx [address 1] and aabbcc112233"),
            // A dump cut inside the secret: its start is still the secret.
            ("01 02 41 58 32 2d 30 30 … (+60 bytes)", "01 02 [serial 1] … (+60 bytes)"),
            ("Config: 45 bytes: 0100004158322d3030…", "Config: 45 bytes: 010000[serial 1]…"),
            // 8 bytes or more of it anywhere: the parts of a long read, each in its own PDU.
            ("value 58 32 2d 30 30 34 32 2d 37", "value [serial 1]"),
            ("01 30 30 34 32 2d 37 37 38 31 02", "01 [serial 1] 02"),
            // Two runs: the first is too short to say anything, the second is 9 bytes of it.
            ("41 58 32 2d  30 30 34 32 2d 37 37 38 31", "41 58 32 2d  [serial 1]"),
        ]
        for (input, expected) in cases { XCTAssertEqual(s.scrub(input), expected, input) }
    }

    func testWhatIsNotASecretStays() {
        let s = secrets()
        for input in [
            "414243 41 42 43", "4158322d3030", "4158322d3030 then more", "no hex at all", "",
            "331122ccbb", "30 30 34 32 2d 37 37",
        ] {
            XCTAssertEqual(s.scrub(input), input)
        }
        XCTAssertEqual(s.count, 2)
    }
}
