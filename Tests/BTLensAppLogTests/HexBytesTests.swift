import XCTest

@testable import BTLensAppLog

final class HexBytesTests: XCTestCase {
    /// Each run as (its text, its bytes in hex, complete, direction).
    private func runs(_ message: String) -> [String] {
        HexBytes.find(in: message).map { run in
            "\(message[run.range])=\(run.bytes.map { String(format: "%02x", $0) }.joined())"
                + (run.isComplete ? "" : " partial") + (run.direction.map { " \($0.rawValue)" } ?? "")
                + (run.isWeak ? " weak" : "")
        }
    }

    func testEverySpelling() {
        XCTAssertEqual(runs("TX command: A5 01 20"), ["A5 01 20=a50120 sent"])
        XCTAssertEqual(runs("notify a5:01:20:07"), ["a5:01:20:07=a5012007 received"])
        XCTAssertEqual(runs("write a5,01,20"), ["a5,01,20=a50120 sent"])
        XCTAssertEqual(runs("value a50120 received"), ["a50120=a50120 received"])
        XCTAssertEqual(runs("didUpdateValueFor FFF1: <a5012007 00010203>"), ["a5012007 00010203=a501200700010203"])
        XCTAssertEqual(runs("send 0xA5,0x01,0x20"), ["0xA5,0x01,0x20=a50120 sent"])
        XCTAssertEqual(runs("RX 0xA5 0x1"), ["0xA5 0x1=a501 received"])
        XCTAssertEqual(runs("sent [0xa5, 0x01]."), ["0xa5, 0x01=a501 sent"])
        XCTAssertEqual(
            runs("-> {length = 8, bytes = 0xa5012007 00010203}"), ["0xa5012007 00010203=a501200700010203 sent"])
        XCTAssertEqual(
            runs("<- {length = 40, bytes = 0xa5012007 00010203 04050607 ... 24252627 }"),
            ["0xa5012007 00010203 04050607=a50120070001020304050607 partial received"])
        XCTAssertEqual(
            runs("RX {length = 300, bytes = 0x0a0b0c0d ... 0a0b0c0d} then a5 01 20"),
            ["0x0a0b0c0d=0a0b0c0d partial received", "a5 01 20=a50120 received"],
            "an elided description's tail is not more bytes of the value, nor a value of its own")
        XCTAssertEqual(
            runs("{length = 9, bytes = 0xa5012007 00010203}"), ["0xa5012007 00010203=a501200700010203 partial"],
            "a length that disagrees with the bytes shown")
        XCTAssertEqual(runs("TX A5 01 20 …"), ["A5 01 20=a50120 partial sent"])
        XCTAssertEqual(runs("TX <a5012007 0001>"), ["a5012007 0001=a50120070001 sent"], "a short last group")
        XCTAssertEqual(runs("status: deadbeef"), ["deadbeef=deadbeef"])
        XCTAssertEqual(runs("TX a5 01 then RX 81 00 ff"), ["a5 01=a501 sent", "81 00 ff=8100ff received"])
        XCTAssertEqual(runs("onCharacteristicWrite a50120"), ["a50120=a50120 sent"], "camelCase words count")
        XCTAssertEqual(runs("a5 01 20 was written"), ["a5 01 20=a50120 sent"], "the word after, when none is before")
    }

    func testWhatIsNotBytes() {
        for message in [
            "added", "face", "decade", "cafe bead", "AddBad", "in 2023", "id 01020304", "at 22:13:20", "at 10:20",
            "handle 0x0040", "addr AA:BB:CC:DD:EE:FF", "uuid 0000fff1-0000-1000-8000-00805f9b34fb", "build a5-01",
            "FFF1", "2A37", "xa50120", "a50120x", "0xa5x", "A5", "<a5>", "<a50>", "{length = 1, bytes = 0xa5}", "Ab12",
            "0xa5012007", "", "   ", "é a5", "fff1-0000",
        ] {
            XCTAssertEqual(runs(message), [], message)
        }
        XCTAssertEqual(runs("error 10 20 30"), ["10 20 30=102030"], "three decimal pairs count")
        // Two decimal pairs are as likely a number: weak, bytes only where a value agrees in time and order.
        XCTAssertEqual(runs("at 10 20"), ["10 20=1020 weak"])
        XCTAssertEqual(runs("receive <= 03 20"), ["03 20=0320 received weak"])
        XCTAssertEqual(runs("receive <= 03,20"), ["03,20=0320 received weak"])
        XCTAssertEqual(runs("receive <= 03 2a"), ["03 2a=032a received"], "a letter makes two pairs bytes")
        XCTAssertEqual(
            runs("a5:01:20:07:00:01:02"), ["a5:01:20:07:00:01:02=a5012007000102"], "seven pairs are not an address")
    }

    func testRangesAreInTheMessageAroundOtherCharacters() throws {
        let message = "é→ TX: a5 01 20 ✓"
        let run = try XCTUnwrap(HexBytes.find(in: message).first)
        XCTAssertEqual(String(message[run.range]), "a5 01 20")
        XCTAssertEqual(message[..<run.range.lowerBound], "é→ TX: ")
    }

    func testDirectionWords() {
        XCTAssertEqual(runs("read response a5 01"), ["a5 01=a501 received"])
        XCTAssertEqual(runs("RX then TX a5 01"), ["a5 01=a501 sent"], "the nearest word before")
        XCTAssertEqual(runs("TXData a5 01"), ["a5 01=a501 sent"])
        XCTAssertEqual(runs("transmit a5 01"), ["a5 01=a501"], "only the listed words")
        XCTAssertEqual(runs("thread a5 01"), ["a5 01=a501"], "a word containing read is not read")
    }

    func testHostileMessagesEndQuickly() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFxX<>{}[], :.-…é=length bytes".unicodeScalars)
        for _ in 0..<500 {
            let n = Int.random(in: 0..<200, using: &generator)
            let s = String(String.UnicodeScalarView((0..<n).map { _ in alphabet.randomElement(using: &generator)! }))
            for run in HexBytes.find(in: s) {
                XCTAssertGreaterThanOrEqual(run.bytes.count, 2, s)
                XCTAssertFalse(s[run.range].isEmpty)
            }
        }
        let long = String(repeating: "a5 ", count: 100_000)
        XCTAssertEqual(HexBytes.find(in: long).first?.bytes.count, 100_000)
        XCTAssertEqual(HexBytes.find(in: String(repeating: "0x", count: 50_000)), [])
    }
}
