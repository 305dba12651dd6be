import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Tag-length-value lists, each value read within its length by the type its tag chooses.
final class TLVFieldTests: XCTestCase {
    static let definition = """
        protocol: tt
        enums: {tag: {1: battery, 2: name}}
        types:
          battery: {seq: [{id: level, type: u1, unit: "%"}]}
        messages:
          - id: 1
            name: M
            seq:
              - id: items
                type: {tlv: {tag: u1, length: u2le, enum: tag, values: {0x01: battery, 0x02: str, _: bytes}}}
          - id: 2
            name: Sized
            seq:
              - {id: items, size: 4, type: {tlv: {tag: u1, length: u1, values: {1: u2be}}}}
              - {id: tail, type: u1}
          - {id: 3, name: Bits, seq: [{id: items, type: {tlv: {tag: u1, length: u1, values: {1: b4}}}}]}
        """

    func decoded(_ command: UInt16, _ hex: String) throws -> DecodedMessage {
        let d = try DefinitionParser.parse(text: Self.definition, file: "t.yaml")
        return d.decode(
            Message(command: command, flags: nil, payload: Hex.bytes(hex) ?? [], direction: .sent, characteristic: nil))
    }

    /// A value longer than its type reads is skipped to its length, as Kaitai Struct skips the rest
    /// of a sized type.
    func testItemsByTag() throws {
        let m = try decoded(1, "01 0100 55  02 0200 6869  07 0100 ff  01 0200 5566")
        XCTAssertEqual(
            MessageField.describe(m.fields),
            #"items=[{tag=battery value={level=85%}} {tag=name value="hi"} {tag=7 value=ff} {tag=battery value={level=85%}}]"#
        )
        XCTAssertEqual(m.problems, [])
    }

    func testALengthPastTheEndOrAValueShortOfItsTypeIsShort() throws {
        XCTAssertEqual(
            try decoded(1, "02 0500 68").problems.map(\.message),
            ["M: field items needs 5 bytes at payload offset 3, 1 left"])
        XCTAssertEqual(
            try decoded(1, "01 0000 55").problems.map(\.message),
            ["M: field level needs 1 byte at payload offset 3, 0 left"])
    }

    func testASizedListEndsWhereItsSizeDoes() throws {
        let m = try decoded(2, "01 02 0102 09")
        XCTAssertEqual(MessageField.describe(m.fields), "items=[{tag=1 value=258}] tail=9")
        XCTAssertEqual(m.problems, [])
    }

    /// Each value starts at its first byte: a bit field does not go on from the item before.
    func testBitFieldValuesStartAtTheirByte() throws {
        XCTAssertEqual(
            MessageField.describe(try decoded(3, "01 01 a0  01 01 b0").fields),
            "items=[{tag=1 value=10} {tag=1 value=11}]")
    }

    func testAtMost4096Items() throws {
        let m = try decoded(1, String(repeating: "07 0000 ", count: 5000))
        guard case .list(let items)? = m.fields.first?.value else { return XCTFail("no list") }
        XCTAssertEqual(items.count, 4096)
        XCTAssertEqual(m.problems, [])
    }

    func testTLVsAreCheckedAtLoad() {
        func error(_ tlv: String) -> String {
            let text = "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: a, type: {tlv: \(tlv)}}]}\n"
            do {
                _ = try DefinitionParser.parse(text: text, file: "x.yaml")
                return "no error"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(
            error("{tag: u3, length: u1, values: {}}"),
            "x.yaml:3: field 'a': tlv tag 'u3'; expected u1, u2le, u2be, u4le or u4be")
        XCTAssertEqual(error("{tag: u1, values: {}}"), "x.yaml:3: field 'a' tlv: missing 'length'")
        XCTAssertEqual(
            error("{tag: u1, length: u1, values: {x: u1}}"), "x.yaml:3: field 'a': tlv tag 'x' is not an integer or _")
        XCTAssertEqual(
            error("{tag: u1, length: u1, enum: nope, values: {}}"),
            "x.yaml:3: field 'a': tlv enum 'nope' is not defined under enums:")
    }
}
