import BTLensCore
import BTLensCrypto
import XCTest

@testable import BTLensDissect

/// Keys given as text: `--ltk`, key lists and BlueZ `info` files, each error naming what it expected.
final class LinkLayerKeysTests: XCTestCase {
    static let hex = "4C68384139F574D836BCF34E9DFB01BF"

    func testAnLTKArgumentWithAndWithoutAnAddress() throws {
        let any = try LinkLayerKeys.argument("0x" + Self.hex.lowercased(), index: 1)
        XCTAssertNil(any.address)
        XCTAssertEqual(any.ltk.hex.uppercased(), Self.hex)
        XCTAssertEqual(any.source, "--ltk 1")
        // Little-endian in memory: the last octet written first.
        XCTAssertEqual(any.ltk.littleEndian.first, 0xbf)
        let one = try LinkLayerKeys.argument("C0:11:22:33:44:55=" + Self.hex, index: 2)
        XCTAssertEqual(one.address?.description, "C0:11:22:33:44:55")
        XCTAssertEqual(one.source, "--ltk 2")
    }

    func testABadArgumentSaysWhatItExpected() {
        for (text, message) in [
            ("1234", "expected a key of 32 hex digits, found \"1234\""),
            ("", "expected a key of 32 hex digits, found nothing"),
            (String(Self.hex.dropLast()) + "G", "expected a key of 32 hex digits, found \"\(Self.hex.dropLast())G\""),
            ("C0:11:22=" + Self.hex, "expected ADDRESS=KEY with an address like C0:FF:EE:00:11:22, found \"C0:11:22\""),
        ] {
            XCTAssertThrowsError(try LinkLayerKeys.argument(text, index: 1)) { e in
                XCTAssertEqual((e as? LinkLayerKeys.Error)?.message, message, text)
            }
        }
    }

    func testAKeyList() throws {
        let text = "# keys\n\nC0:11:22:33:44:55 \(Self.hex)  # the lamp\n\(Self.hex.lowercased())\r\n"
        let keys = try LinkLayerKeys.read(text, name: "keys.txt", device: nil)
        XCTAssertEqual(keys.map(\.source), ["keys.txt:3", "keys.txt:4"])
        XCTAssertEqual(keys.map { $0.address?.description }, ["C0:11:22:33:44:55", nil])
        XCTAssertEqual(keys.map { $0.ltk.hex.uppercased() }, [Self.hex, Self.hex])
        XCTAssertThrowsError(try LinkLayerKeys.read("\n\(Self.hex) extra words", name: "k", device: nil)) { e in
            XCTAssertEqual(
                (e as? LinkLayerKeys.Error)?.message,
                "k:2: expected [ADDRESS] KEY (32 hex digits), found \"\(Self.hex) extra words\"")
        }
    }

    /// A byte order mark is skipped; a file with no key is an error, not a silent nothing.
    func testAByteOrderMarkAndAnEmptyFile() throws {
        let keys = try LinkLayerKeys.read("\u{FEFF}\(Self.hex)\r\n", name: "bom.txt", device: nil)
        XCTAssertEqual(keys.map { $0.ltk.hex.uppercased() }, [Self.hex])
        XCTAssertThrowsError(try LinkLayerKeys.read("# nothing yet\n", name: "empty.txt", device: nil)) { e in
            XCTAssertEqual(
                (e as? LinkLayerKeys.Error)?.message, "empty.txt: expected [ADDRESS] KEY lines, found no key")
        }
    }

    /// BlueZ writes a key's octets least significant first (doc/settings-storage.txt's LongTermKey).
    func testABlueZInfoFile() throws {
        let stored = String(Self.hex.chunked().reversed().joined())
        let text = """
            [General]
            Name=Lamp

            [LongTermKey]
            Key=\(stored)
            Authenticated=0
            EncSize=16
            EDiv=9332
            Rand=12379813738877118345

            [PeripheralLongTermKey]
            Key=\(stored)
            """
        let device = BDAddr(text: "C0:11:22:33:44:55")
        let keys = try LinkLayerKeys.read(text, name: "info", device: device)
        XCTAssertEqual(keys.map { $0.ltk.hex.uppercased() }, [Self.hex, Self.hex])
        XCTAssertEqual(keys.map(\.source), ["info:5", "info:12"])
        XCTAssertEqual(keys.first?.address, device)
        XCTAssertThrowsError(try LinkLayerKeys.read("[LongTermKey]\nKey=12\n", name: "info", device: nil)) { e in
            XCTAssertEqual(
                (e as? LinkLayerKeys.Error)?.message, "info:2: expected Key= and 32 hex digits, found \"Key=12\"")
        }
    }

    func testAddressesAsText() {
        XCTAssertEqual(BDAddr(text: "c0-11-22-33-44-55")?.description, "C0:11:22:33:44:55")
        for bad in ["", "C0:11:22:33:44", "C0:11:22:33:44:5G", "C0:11:22:33:44:555", "::::::"] {
            XCTAssertNil(BDAddr(text: bad), bad)
        }
    }
}

extension String {
    /// Two characters at a time.
    fileprivate func chunked() -> [String] {
        stride(from: 0, to: count, by: 2).map { i in
            let a = index(startIndex, offsetBy: i)
            return String(self[a..<index(a, offsetBy: 2)])
        }
    }
}
