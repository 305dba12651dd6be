import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Each field type of the definition format, decoded from hex.
final class FieldDecodingTests: XCTestCase {
    func definition(_ messages: String, extra: String = "") throws -> DefinitionDissector {
        try DefinitionParser.parse(text: "protocol: tt\n\(extra)\nmessages:\n\(messages)", file: "t.yaml")
    }

    func decode(
        _ d: DefinitionDissector, _ command: UInt16, _ hex: String, flags: UInt8? = nil,
        from: Direction = .sent
    ) -> DecodedMessage {
        d.decode(
            Message(command: command, flags: flags, payload: Hex.bytes(hex) ?? [], direction: from, characteristic: nil)
        )
    }

    func text(_ m: DecodedMessage) -> String { MessageField.describe(m.fields) }

    func testIntegersOfEveryWidthAndByteOrder() throws {
        let d = try definition(
            """
              - id: 1
                name: Ints
                seq:
                  - {id: a, type: u1}
                  - {id: b, type: u2le}
                  - {id: c, type: u2be}
                  - {id: d, type: u4le}
                  - {id: e, type: u4be}
                  - {id: f, type: u8le}
                  - {id: g, type: s1}
                  - {id: h, type: s2be}
                  - {id: i, type: s4le}
                  - {id: j, type: u2}
            """, extra: "endian: be")
        let m = decode(d, 1, "ff 0102 0102 01020304 01020304 0100000000000000 ff fffe feffffff 0102")
        XCTAssertEqual(text(m), "a=255 b=513 c=258 d=67305985 e=16909060 f=1 g=-1 h=-2 i=-2 j=258")
        XCTAssertEqual(m.problems, [])
    }

    func testBytesAndStringsSizedFixedByAFieldAndToTheEnd() throws {
        let d = try definition(
            """
              - id: 1
                name: Sized
                seq:
                  - {id: tag, type: bytes, size: 2}
                  - {id: n, type: u1}
                  - {id: name, type: str, size: n}
                  - {id: rest, size: eos}
            """)
        XCTAssertEqual(text(decode(d, 1, "abcd 03 414243 0102")), #"tag=abcd n=3 name="ABC" rest=0102"#)
    }

    func testEnumsFlagsUnitsAndScale() throws {
        let d = try definition(
            """
              - id: 1
                name: Shown
                seq:
                  - {id: mode, type: u1, enum: mode}
                  - {id: other, type: u1, enum: mode}
                  - {id: buds, type: u1, flags: {0x01: left, 0x02: right}}
                  - {id: level, type: u1, unit: "%"}
                  - {id: volts, type: u2le, scale: 0.001, unit: V}
                  - {id: temp, type: s1, scale: 0.5, offset: 20, unit: °C}
            """, extra: "enums:\n  mode: {0: off, 1: on}")
        let m = decode(d, 1, "01 07 07 55 c409 fc")
        XCTAssertEqual(text(m), "mode=on other=7? buds=[left,right,0x04] level=85% volts=2.5V temp=18°C")
    }

    /// A scaled value is the decimal the definition means: 6005 × 0.01 is 60.05, not the binary
    /// 60.050000000000004, in the text, in JSON and for filters.
    func testScaledValuesAreDecimals() throws {
        let d = try definition(
            """
              - id: 1
                name: Weight
                seq:
                  - {id: grams, type: u2le, scale: 0.01, unit: kg}
                  - {id: tiny, type: u4le, scale: 0.000001}
                  - {id: cold, type: s2le, scale: 0.1, offset: -40}
            """)
        let m = decode(d, 1, "7517 39300000 0100")
        XCTAssertEqual(text(m), "grams=60.05kg tiny=0.012345 cold=-39.9")
        XCTAssertEqual(m.fields.first?.value, .measure(60.05, unit: "kg"))
    }

    /// An integer with a unit and no scale stays an integer: a 64-bit timestamp in nanoseconds
    /// (Polar PMD's data frames) is exact, not the nearest double.
    func testAnIntegerWithAUnitIsExact() throws {
        let d = try definition(
            """
              - id: 1
                name: Stamped
                seq:
                  - {id: timestamp_ns, type: u8le, unit: ns}
                  - {id: offset_ns, type: s8le, unit: ns}
            """)
        let m = decode(d, 1, "0010a06b2e3c9a0a fff0ffffffffffff")
        XCTAssertEqual(text(m), "timestamp_ns=763989256864534528ns offset_ns=-3841ns")
        XCTAssertEqual(m.fields.first?.value, .uintUnit(763_989_256_864_534_528, unit: "ns"))
    }

    /// A mask is up to 64 bits with no sign: bit 63 (0x8000000000000000) did not fit the signed
    /// integer the keys were read as, and the file was refused.
    func testBit63IsAFlag() throws {
        let d = try definition(
            "  - {id: 1, name: M, seq: [{id: bits, type: u8le, flags: {0x8000000000000000: top, 0x01: low}}]}")
        XCTAssertEqual(text(decode(d, 1, "01 00 00 00 00 00 00 80")), "bits=[top,low]")
    }

    func testNestedGroupsRepeatsAndSwitches() throws {
        let d = try definition(
            """
              - id: 1
                name: Nested
                seq:
                  - {id: count, type: u1}
                  - {id: cells, type: cell, repeat: count}
                  - {id: kind, type: u1}
                  - id: body
                    type:
                      switch-on: kind
                      cases: {1: wearing, 2: cell, _: bytes}
                  - {id: tail, type: u1, repeat: eos}
            """,
            extra: """
                types:
                  cell:
                    seq:
                      - {id: id, type: u1}
                      - {id: mv, type: u2le}
                  wearing:
                    seq:
                      - {id: left, type: u1}
                      - {id: right, type: u1}
                """)
        XCTAssertEqual(
            text(decode(d, 1, "02 01e803 02d007 01 0100 0909")),
            "count=2 cells=[{id=1 mv=1000} {id=2 mv=2000}] kind=1 body={left=1 right=0} tail=[9 9]")
        XCTAssertEqual(text(decode(d, 1, "00 07 abcd")), "count=0 cells=[] kind=7 body=abcd tail=[]")
    }

    func testMessagesAreChosenByIdAndDirection() throws {
        let d = try definition(
            """
              - {id: 0x10, name: Ask, from: phone}
              - {id: 0x10, name: Answer, from: accessory, kind: response}
              - {id: 0x11, name: Either}
            """)
        XCTAssertEqual(decode(d, 0x10, "").name, "Ask")
        XCTAssertEqual(decode(d, 0x10, "", from: .received).name, "Answer")
        XCTAssertEqual(decode(d, 0x10, "", from: .received).kind, .response)
        XCTAssertEqual(decode(d, 0x11, "", from: .received).name, "Either")
        XCTAssertNil(decode(d, 0x12, "").name)
    }

    func testFlagNames() throws {
        let d = try definition("  - {id: 1, name: M}", extra: "flags: {0x01: ackWanted, 0x80: encrypted}")
        XCTAssertEqual(decode(d, 1, "", flags: 0x81).flagNames, ["ackWanted", "encrypted"])
        XCTAssertEqual(decode(d, 1, "", flags: 0x02).flagNames, [])
    }

    func testShortPayloadsKeepTheFieldsBeforeAndSayWhere() throws {
        let d = try definition(
            """
              - id: 1
                name: Two
                seq:
                  - {id: a, type: u1}
                  - {id: b, type: u2le}
            """)
        let m = decode(d, 1, "05 01")
        XCTAssertEqual(text(m), "a=5")
        XCTAssertEqual(m.problems.map(\.id), ["a5.payload.short"])
        XCTAssertEqual(m.problems.first?.message, "Two: field b needs 2 bytes at payload offset 1, 1 left")
        let extra = decode(d, 1, "05 0100 ff ff")
        XCTAssertEqual(extra.problems.map(\.message), ["Two: 2 bytes after the last field (payload offset 3)"])
    }

    func testValidRangesAndLists() throws {
        let d = try definition(
            """
              - id: 1
                name: V
                seq:
                  - {id: pct, type: u1, valid: {min: 0, max: 100}}
                  - {id: mode, type: u1, valid: {any-of: [1, 2, 4]}}
            """)
        XCTAssertEqual(decode(d, 1, "64 04").problems, [])
        XCTAssertEqual(
            decode(d, 1, "65 03").problems.map(\.message),
            ["V: pct is 101; expected 0…100", "V: mode is 3; expected one of 1, 2, 4"])
    }

    func testRepeatsStopAtTheLimitAndOnEmptyItems() throws {
        let d = try definition(
            """
              - id: 1
                name: R
                seq:
                  - {id: n, type: u2le}
                  - {id: items, type: u1, repeat: n}
                  - {id: empties, type: bytes, size: 0, repeat: eos}
            """)
        // n = 65535 items asked for, 3 present: the payload runs out first (a short read), not a loop.
        let m = decode(d, 1, "ffff 010203")
        XCTAssertEqual(m.problems.map(\.id), ["a5.payload.short"])
        let ok = decode(d, 1, "0200 0102")
        XCTAssertEqual(text(ok), #"n=2 items=[1 2] empties=[]"#)
    }
}
