import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// `type: protobuf`: a payload read as Protocol Buffers without a schema, as `protoc --decode_raw`
/// does. The vectors are protobuf.dev's "Encoding" examples: `08 96 01` is field 1 = 150,
/// `12 07 74 65 73 74 69 6e 67` field 2 = "testing", `1a 03 08 96 01` field 3 = {1: 150}.
final class ProtobufRawTests: XCTestCase {
    let d: DefinitionDissector = {
        let yaml = """
            protocol: tt
            messages:
              - {id: 1, name: Pb, seq: [{id: body, type: protobuf}]}
              - {id: 2, name: Sized, seq: [{id: n, type: u1}, {id: body, type: protobuf, size: n}, {id: tail, type: u1}]}
            """
        // The definition above is a test fixture that parses.
        return try! DefinitionParser.parse(text: yaml, file: "t.yaml")
    }()

    func decode(_ command: UInt16, _ hex: String) -> DecodedMessage {
        d.decode(
            Message(
                command: command, flags: nil, payload: Hex.bytes(hex) ?? [], direction: .sent, characteristic: nil))
    }

    func testTheEncodingGuidesExamples() {
        let m = decode(1, "08 96 01 12 07 74 65 73 74 69 6e 67 1a 03 08 96 01")
        XCTAssertEqual(MessageField.describe(m.fields), #"body={1=150 2="testing" 3={1=150}}"#)
        XCTAssertEqual(m.problems, [])
    }

    /// A number met twice is a repeated field: a list. Fixed 32- and 64-bit values are numbers,
    /// little-endian; bytes that are neither a message nor text stay bytes.
    func testRepeatedFixedAndBytes() {
        // 20 01 20 02: field 4 (varint) twice; 29: field 5, fixed64 42; 35: field 6, fixed32 1;
        // 3a 02 ff 00: field 7, two bytes that are not UTF-8.
        let m = decode(1, "20 01 20 02 29 2a 00 00 00 00 00 00 00 35 01 00 00 00 3a 02 ff 00")
        XCTAssertEqual(MessageField.describe(m.fields), "body={4=[1 2] 5=42 6=1 7=ff00}")
    }

    /// A size from an earlier field bounds the message; the field after it is read as usual.
    func testASizedMessageEndsWhereItsSizeSays() {
        let m = decode(2, "03 08 96 01 07")
        XCTAssertEqual(MessageField.describe(m.fields), "n=3 body={1=150} tail=7")
        XCTAssertEqual(m.problems, [])
    }

    /// Bytes that stop being protobuf keep the fields before them and say where and why.
    func testMalformedInputIsSaidWithItsOffset() {
        let cases: [(String, String)] = [
            ("08 96 01 0f", "Pb: body is not a protobuf message at payload offset 3: field 1 has wire type 7"),
            ("08 96", "Pb: body is not a protobuf message at payload offset 2: a varint is cut off"),
            ("12 05 61 62", "Pb: body is not a protobuf message at payload offset 2: field 2 needs 5 bytes, 2 left"),
            (
                "00 01",
                "Pb: body is not a protobuf message at payload offset 0: field number 0; expected 1 to 536870911"
            ),
            (
                "08 ff ff ff ff ff ff ff ff ff ff 01",
                "Pb: body is not a protobuf message at payload offset 11: a varint is longer than 10 bytes"
            ),
        ]
        for (hex, message) in cases {
            let m = decode(1, hex)
            XCTAssertEqual(m.problems.map(\.message), [message], hex)
            XCTAssertEqual(m.problems.map(\.id), ["a5.field.invalid"], hex)
        }
        XCTAssertEqual(MessageField.describe(decode(1, "08 96 01 0f").fields), "body={1=150}")
    }

    /// Random bytes never trap, and nesting stops at the depth limit: a deeper value is shown as
    /// bytes, not read further.
    func testHostileBytesAndDeepNesting() {
        var rng = SplitMix(seed: 42)
        for _ in 0..<2_000 { _ = decode(1, Hex.string(rng.bytes(rng.below(64)))) }
        var inner: [UInt8] = [0x08, 0x01]
        for _ in 0..<40 { inner = [0x0a, UInt8(inner.count)] + inner }
        let m = decode(1, Hex.string(inner))
        XCTAssertEqual(m.problems, [])
        let text = MessageField.describe(m.fields)
        XCTAssertEqual(text.filter { $0 == "{" }.count, ProtobufRaw.depthLimit)
    }
}
