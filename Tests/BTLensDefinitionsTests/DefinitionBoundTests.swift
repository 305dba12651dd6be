import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// What a definition may ask for as a whole (`DefinitionCost`), keys spelt twice, and names the
/// Wireshark export could not register: each refused at its line (issue 47, parts 1 and 8).
final class DefinitionBoundTests: XCTestCase {

    /// The nine lines: 4,096 empty items, repeated 4,096 times, repeated 4,096 times.
    static let repeatBomb = """
        protocol: bomb
        types:
          e: {seq: []}
          a: {seq: [{id: x, type: e, repeat: 4096}]}
          b: {seq: [{id: y, type: a, repeat: 4096}]}
        messages:
          - {id: 0x20, name: M, seq: [{id: z, type: b, repeat: 4096}]}
        """

    /// Nine types each of ten fields of the type before: 10⁹ fields once written out.
    static var typeTower: String {
        var yaml = "protocol: tower\ntypes:\n  t0: {seq: [{id: v, type: u1}]}\n"
        for i in 1...9 {
            let fields = (0..<10).map { "{id: f\($0), type: t\(i - 1)}" }.joined(separator: ", ")
            yaml += "  t\(i): {seq: [\(fields)]}\n"
        }
        return yaml + "messages:\n  - {id: 1, name: M, seq: [{id: top, type: t9}]}\n"
    }

    func testRepeatsOfRepeatsAreRefusedAtTheirMessage() {
        XCTAssertEqual(
            definitionError(Self.repeatBomb),
            "x.yaml:7: message M: its fields can produce more than 65536 values (repeats of types of repeats); a message may produce at most 65536"
        )
        // 16 × 4096 values fit; what takes bytes is paid for by the payload, so eos is not counted.
        XCTAssertEqual(
            definitionError(
                """
                protocol: tt
                types:
                  pair: {seq: [{id: a, type: u1}, {id: b, type: u1}]}
                  sixteen: {seq: [{id: p, type: pair, repeat: 5}, {id: rest, type: u1, repeat: eos}]}
                messages:
                  - {id: 1, name: M, seq: [{id: n, type: u2}, {id: x, type: sixteen, repeat: n}]}
                  - {id: 2, name: N, seq: [{id: e, type: bytes, size: 0, repeat: 4096}]}
                """), "no error")
    }

    func testTypesOfTypesAreRefusedFast() {
        let start = ContinuousClock.now
        XCTAssertEqual(
            definitionError(Self.typeTower),
            "x.yaml:14: message M: its fields can produce more than 65536 values (repeats of types of repeats); a message may produce at most 65536"
        )
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    func testAnUnusedTypeIsCheckedToo() {
        XCTAssertEqual(
            definitionError("protocol: tt\ntypes:\n  loop: {seq: [{id: again, type: loop}]}\n"),
            "x.yaml:3: type 'loop' contains itself (loop → loop)")
        XCTAssertEqual(
            definitionError("protocol: tt\ntypes:\n  a: {seq: [{id: x, type: u3x}]}\n").prefix(40),
            "x.yaml:3: field 'x': unknown type 'u3x';")
        // The fields it names are taken to come before it, as where it is used.
        XCTAssertEqual(
            definitionError("protocol: tt\ntypes:\n  a: {seq: [{id: x, type: bytes, size: n}]}\n"), "no error")
    }

    func testAKeySpeltTwiceIsRefused() {
        XCTAssertEqual(
            definitionError("protocol: tt\nenums:\n  e:\n    1: one\n    0x1: uno\n"),
            "x.yaml:5: enum e: key '0x1' is 1, as '1' is; each value once")
        XCTAssertEqual(
            definitionError("protocol: tt\nflags: {0x01: a, 0b1: b}\n"),
            "x.yaml:2: flags: key '0b1' is 1, as '0x01' is; each value once")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: k, type: u1}, {id: v, type: {switch-on: k, cases: {1: u1, 0x01: u2}}}]}\n"
            ), "x.yaml:3: field 'v' cases: key '0x01' is 1, as '1' is; each value once")
    }

    func testAnEmptyValidRangeIsRefused() {
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {min: 100, max: 0}}]}\n"),
            "x.yaml:3: field 'v': valid min 100 is above max 0, so no value is valid")
    }

    func testWiresharksOwnProtocolNamesAreRefused() {
        XCTAssertEqual(
            definitionError("protocol: Frame\n"),
            "x.yaml:1: protocol: 'Frame' is Wireshark's own protocol frame; the export could not register it")
    }

    func testFilterNamesWiresharkRefusesAreRefused() {
        XCTAssertEqual(
            definitionError("protocol: a\n"),
            "x.yaml:1: protocol: 'a' exports to Wireshark as a, which is shorter than the two characters Wireshark needs"
        )
        XCTAssertEqual(
            definitionError("protocol: .\n"),
            "x.yaml:1: protocol: '.' exports to Wireshark as _, which is shorter than the two characters Wireshark needs"
        )
        XCTAssertEqual(
            definitionError("protocol: \"123\"\n"),
            "x.yaml:1: protocol: '123' exports to Wireshark as 123, which is all digits, which Wireshark refuses")
        XCTAssertEqual(
            definitionError("protocol: 0X1f\n"),
            "x.yaml:1: protocol: '0X1f' exports to Wireshark as 0x1f, which starts with 0x, which Wireshark refuses")
        XCTAssertEqual(
            definitionError("protocol: And\n"),
            "x.yaml:1: protocol: 'And' exports to Wireshark as and, which is a display filter keyword, which Wireshark refuses"
        )
        XCTAssertEqual(
            definitionError(
                "protocol: \"1a\"\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {min: 1, max: 0}}]}\n"
            ),
            "x.yaml:3: field 'v': valid min 1 is above max 0, so no value is valid")
    }

    func testWiresharksOwnProtocolTitlesAreRefused() {
        XCTAssertEqual(
            definitionError("protocol: tt\ntitle: Bluetooth Attribute Protocol\n"),
            "x.yaml:2: title: 'Bluetooth Attribute Protocol' is the title of a protocol of Wireshark's own;"
                + " the export could not register it")
        XCTAssertEqual(
            definitionError("protocol: Ethernet\n"),
            "x.yaml:1: protocol: 'Ethernet' is the title of a protocol of Wireshark's own; the export could not register it"
        )
        XCTAssertEqual(
            definitionError(
                "protocol: Ethernet\ntitle: Ethernet gadget\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {min: 1, max: 0}}]}\n"
            ),
            "x.yaml:4: field 'v': valid min 1 is above max 0, so no value is valid")
    }

    func testAFlagBeyondItsFieldIsRefused() {
        XCTAssertEqual(
            definitionError("protocol: tt\nflags: {0x01: small, 0x100: big}\n"),
            "x.yaml:2: flags: key '0x100' is a bit beyond the 8 bits of the frame's flags byte")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: f, type: u1, flags: {0x100: big}}]}\n"),
            "x.yaml:3: field 'f' flags: key '0x100' is a bit beyond the 8 bits of the field")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: f, type: b4, flags: {0x10: big}}]}\n"),
            "x.yaml:3: field 'f' flags: key '0x10' is a bit beyond the 4 bits of the field")
    }

    func testFlagNamesExportAsAbbreviationsWiresharkTakes() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                flags: {0x01: ack wanted}
                messages:
                  - {id: 1, name: M, seq: [{id: f, type: u1, flags: {0x01: ack wanted, 0x02: "é.x"}}]}
                """, file: "t.yaml")
        let lua = WiresharkExport.lua([d], version: "test")
        XCTAssertTrue(lua.contains("{ 0x01, \"ack wanted\", \"ack_wanted\" }"), lua)
        XCTAssertTrue(lua.contains("[\"f.ack_wanted\"] = { n = \"ack wanted\""))
        XCTAssertTrue(lua.contains("[\"f.__x\"] = { n = \"é.x\""))
    }

    /// A loaded definition whose every repetition takes a byte still stops at 65,536 values a message.
    func testDecodingStopsAtTheValuesAMessageMayProduce() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                types:
                  wide: {seq: [{id: b, type: u1}, {id: e, type: bytes, size: 0, repeat: 4000}]}
                messages:
                  - {id: 1, name: M, seq: [{id: n, type: u2le}, {id: rows, type: wide, repeat: n}]}
                """, file: "t.yaml")
        let payload: [UInt8] = [0x00, 0x10] + [UInt8](repeating: 7, count: 4096)
        let start = ContinuousClock.now
        let m = d.decode(Message(command: 1, flags: nil, payload: payload, direction: .sent, characteristic: nil))
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
        XCTAssertEqual(
            m.problems.map { "\($0.id): \($0.message)" },
            ["a5.payload.items: M: 65536 values decoded at payload offset 19; a message may produce no more"])
    }
}
