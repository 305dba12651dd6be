import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Protocol Buffers read by a schema in the definition (protobuf.dev, "Encoding"), vectors
/// encoded by hand from that page's rules.
final class ProtobufSchemaTests: XCTestCase {
    static let schema = """
        enums:
          mode: {0: off, 1: on}
        protobufs:
          DeviceInfo:
            1: {id: name, type: string}
            2: {id: battery, type: uint32}
            3: {id: mode, type: enum, enum: mode}
            4: {id: child, type: message, message: DeviceInfo}
            5: {id: values, type: sint32, repeated: true}
            6: {id: ok, type: bool}
            7: {id: temp, type: float}
            8: {id: big, type: sfixed64}
            9: {id: level, type: int32}
        """

    func decoded(_ hex: String) throws -> DecodedMessage {
        let d = try DefinitionParser.parse(
            text:
                "protocol: tt\n\(Self.schema)\nmessages:\n  - {id: 1, name: M, seq: [{id: body, type: {protobuf: DeviceInfo}}]}\n",
            file: "t.yaml")
        return d.decode(
            Message(command: 1, flags: nil, payload: Hex.bytes(hex) ?? [], direction: .sent, characteristic: nil))
    }

    /// name "hi", battery 150 (96 01), mode 1, child {name "c"}, values packed [-1 1 -2] (zigzag
    /// 01 02 03), ok true, temp 1.5 (fixed32 0x3fc00000), big -2 (fixed64), level -1 (int32 as 10
    /// bytes), then field 10 that the schema does not list.
    func testFieldsByName() throws {
        let m = try decoded(
            "0a026869 109601 1801 22030a0163 2a03010203 3001 3d0000c03f 41feffffffffffffff"
                + " 48ffffffffffffffffff01 5005")
        XCTAssertEqual(
            MessageField.describe(m.fields),
            #"body={name="hi" battery=150 mode=on child={name="c"} values=[-1 1 -2] ok=true temp=1.5 big=-2 level=-1 10=5}"#
        )
        XCTAssertEqual(m.problems, [])
    }

    /// A repeated field is a list even with one value; a field met twice is a list anyway.
    func testRepeatedAndUnpackedValues() throws {
        XCTAssertEqual(MessageField.describe(try decoded("2801").fields), "body={values=[-1]}")
        XCTAssertEqual(MessageField.describe(try decoded("1001 1002").fields), "body={battery=[1 2]}")
    }

    func testAWireTypeTheSchemaDisagreesWithIsInvalidAtItsOffset() throws {
        // Field 3 as fixed32 (wire type 5): the schema says enum, a varint. A length-delimited
        // value of a scalar is packed, which the schema allows.
        let m = try decoded("1001 1d01000000")
        XCTAssertEqual(MessageField.describe(m.fields), "body={battery=1 mode=1}")
        XCTAssertEqual(
            m.problems.map(\.message),
            ["M: body (DeviceInfo): field 3 (mode) has wire type 5; expected 0, at payload offset 2"])
        XCTAssertEqual(m.problems.map(\.id), ["a5.field.invalid"])
    }

    func testBrokenMessagesAndPackedFieldsAreInvalid() throws {
        let cut = try decoded("1001 22020a05")
        XCTAssertEqual(
            cut.problems.map(\.message),
            ["M: body (DeviceInfo): field 1 needs 5 bytes, 0 left, at payload offset 6"])
        let packed = try decoded("2a020180")
        XCTAssertEqual(MessageField.describe(packed.fields), "body={values=[-1]}")
        XCTAssertEqual(
            packed.problems.map(\.message),
            ["M: body (DeviceInfo): packed field 5 (values): a varint is cut off, at payload offset 3"])
    }

    /// A message that contains itself is read 16 deep, then shown as bytes: no loop.
    func testSelfReferenceIsBounded() throws {
        var hex = "0a0178"
        for _ in 0..<20 { hex = "22" + String(format: "%02x", hex.count / 2) + hex }
        let text = MessageField.describe(try decoded(hex).fields)
        XCTAssertEqual(text.components(separatedBy: "child={").count - 1, 15)
        XCTAssertTrue(text.contains("child=220"), text)
    }

    func testSchemasAreCheckedAtLoad() {
        func error(_ protobufs: String, _ field: String = "{protobuf: A}") -> String {
            let text =
                "protocol: tt\nenums: {e: {0: a}}\nprotobufs:\n\(protobufs)\nmessages:\n  - {id: 1, name: M, seq: [{id: b, type: \(field)}]}\n"
            do {
                _ = try DefinitionParser.parse(text: text, file: "x.yaml")
                return "no error"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(error("  A: {1: {id: a, type: string}}"), "no error")
        XCTAssertEqual(
            error("  A: {0: {id: a, type: string}}"), "x.yaml:4: protobuf A: field number '0'; expected 1 to 536870911")
        XCTAssertEqual(
            error("  A: {1: {id: a, type: sint16}}"),
            "x.yaml:4: protobuf A field a: type 'sint16'; expected one of: int32 int64 uint32 uint64 sint32 sint64 bool enum fixed32 fixed64 sfixed32 sfixed64 float double string bytes message"
        )
        XCTAssertEqual(
            error("  A: {1: {id: a, type: message, message: B}}"),
            "x.yaml:4: protobuf message 'B' is not defined under protobufs: (defined: A)")
        XCTAssertEqual(
            error("  A: {1: {id: a, type: message}}"),
            "x.yaml:4: protobuf A field a: 'message' names the message of a field of type message")
        XCTAssertEqual(
            error("  A: {1: {id: a, type: enum, enum: nope}}"),
            "x.yaml:4: protobuf A field a: enum 'nope' is not defined under enums:")
        XCTAssertEqual(
            error("  A: {1: {id: a, type: bool}}", "{protobuf: C}"),
            "x.yaml:6: field 'b': protobuf message 'C' is not defined under protobufs: (defined: A)")
    }
}
