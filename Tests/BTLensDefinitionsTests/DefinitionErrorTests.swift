import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Each kind of definition error, with its file, line and exact message.
final class DefinitionErrorTests: XCTestCase {

    func testBadYAML() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages: [a, b\n"), "x.yaml:3: YAML: did not find expected ',' or ']'")
    }

    /// libyaml's own words name its C API (`yaml_set_max_nest_level()`); a control character had no line.
    func testYAMLNestedTooDeepAndControlCharactersAreSaidAtTheirLines() {
        let deep =
            "protocol: tt\ny:\n" + (1...1100).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n")
        XCTAssertEqual(definitionError(deep), "x.yaml:1001: YAML nested deeper than the 1000 levels btlens reads")
        XCTAssertEqual(
            definitionError("protocol: tt\ntitle: a\u{0}b\n"),
            "x.yaml:2: YAML: control characters are not allowed (0x00)")
        XCTAssertEqual(
            definitionError("protocol: tt\n\ntitle: a\u{1b}[2Jb\n"),
            "x.yaml:3: YAML: control characters are not allowed (0x1b)")
    }

    func testNoValueValidIsAnError() {
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {any-of: []}}]}\n"),
            "x.yaml:3: field 'v': valid any-of is empty, so no value is valid")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {min: 0x100, max: 300}}]}\n"
            ),
            "x.yaml:3: field 'v': valid 256…300 is outside the field's 0…255, so no value is valid")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: s1, valid: {max: -129}}]}\n"),
            "x.yaml:3: field 'v': valid …-129 is outside the field's -128…127, so no value is valid")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: b3, valid: {any-of: [8, 9]}}]}\n"),
            "x.yaml:3: field 'v': valid any-of holds no value of the field's 0…7, so no value is valid")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, valid: {min: 255, max: 300}}]}\n"
            ),
            "no error")
    }

    func testEmptyFileAndMissingProtocol() {
        XCTAssertEqual(definitionError(""), "x.yaml:-: empty file; expected a mapping with 'protocol:'")
        XCTAssertEqual(definitionError("title: t\n"), "x.yaml:1: the definition: missing 'protocol'")
    }

    func testUnknownKeys() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmesages: []\n"),
            "x.yaml:2: unknown key 'mesages' in the definition; expected one of: protocol, title, endian, bind, framing, flags, enums, protobufs, types, messages, pairing, examples"
        )
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: a, type: u1, sise: 2}]}\n"),
            "x.yaml:3: unknown key 'sise' in a field of message M; expected one of: id, type, size, repeat, enum, flags, unit, scale, offset, valid, time, pad-right, doc"
        )
    }

    func testUnknownType() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages:\n  - id: 1\n    name: M\n    seq:\n      - {id: a, type: u5}\n"),
            "x.yaml:6: field 'a': unknown type 'u5'; expected u1, u2le, u2be, u3le … u8be, s1 … s8be, b1 … b64, vlq, svarint, f2le … f8be, bytes, str, strz, protobuf"
        )
    }

    func testAFieldReferencingAMissingField() {
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - id: 1\n    name: M\n    seq:\n      - {id: a, type: u1}\n      - {id: b, type: bytes, size: len}\n"
            ),
            "x.yaml:7: field 'b': size refers to 'len', which is not an earlier integer field (earlier: a)")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - id: 1\n    name: M\n    seq:\n      - {id: b, type: {switch-on: kind, cases: {1: u1}}}\n"
            ),
            "x.yaml:6: field 'b': switch-on refers to 'kind', which is not an earlier integer field (earlier: none)")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - id: 1\n    name: M\n    seq:\n      - {id: a, type: u1, repeat: later}\n      - {id: later, type: u1}\n"
            ),
            "x.yaml:6: field 'a': repeat refers to 'later', which is not an earlier integer field (earlier: none)")
    }

    func testDuplicateCommandId() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages:\n  - {id: 0x20, name: A}\n  - {id: 32, name: B, from: phone}\n"),
            "x.yaml:4: duplicate command id 0x20: 'B' and 'A' (line 3) both decode it; give them different 'from:' if the id means different things each way"
        )
    }

    func testUndefinedEnumAndTypesThatContainThemselves() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: a, type: u1, enum: nope}]}\n"),
            "x.yaml:3: field 'a': enum 'nope' is not defined under enums: (none is defined)")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\ntypes:\n  loop: {seq: [{id: again, type: loop}]}\nmessages:\n  - {id: 1, name: M, seq: [{id: a, type: loop}]}\n"
            ),
            "x.yaml:3: type 'loop' contains itself (loop → loop)")
    }

    func testFramingErrors() {
        XCTAssertEqual(
            definitionError("protocol: tt\nframing: slip\n"),
            "x.yaml:2: framing: unknown framing 'slip'; expected a5, value, event-byte, or a mapping with magic, header, length-counts, checksum, delimiter ({delimiter: slip, header: [command]})"
        )
        XCTAssertEqual(
            definitionError("protocol: tt\nframing: {magic: 0x55, header: [command]}\n"),
            "x.yaml:2: framing header: expected at most one command and exactly one length field, found 1 and 0")
        XCTAssertEqual(
            definitionError("protocol: tt\nframing: {magic: 0x55, header: [command, length], checksum: crc32}\n"),
            "x.yaml:2: framing checksum: unknown algorithm 'crc32'; expected sum8, twos-complement8, xor8, sum16, a CRC's name from the catalogue (crc-16/kermit, crc-32, … in Dissectors/README.md), its parameters or none; did you mean crc-32?"
        )
        XCTAssertEqual(
            definitionError("protocol: tt\nframing: {magic: 0x55, header: [command, length, fragment-count]}\n"),
            "x.yaml:2: framing header: fragment-count and fragment-index go together")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nframing: {magic: 0x55, header: [command, length, fragment-count, fragment-index], checksum: crc8}\n"
            ),
            "x.yaml:2: framing: a message sent in several frames is checked over its joined payload; use checksum covers: payload"
        )
        XCTAssertEqual(
            definitionError("protocol: tt\nbind:\n  characteristics:\n    - {uuid: fff1, framing: value}\n"),
            "x.yaml:4: characteristic fff1: framing 'value' needs 'message:' (the message its value is)")
    }

    /// A file is checked whole: every error in it, in line order, not only the first; an error
    /// does not bring others after it (a field or message that failed is not "undefined" later).
    func testEveryErrorOfAFileInOneRun() {
        XCTAssertEqual(
            definitionError(
                """
                protocol: tt
                titel: x
                enums: {mode: {0: off, x: on}}
                messages:
                  - {id: 1, name: A, from: watch}
                  - {id: 2, name: B, response: A, seq: [{id: a, type: u5}, {id: b, type: bytes, size: a}, {id: c, type: u1, enum: nope}]}
                bind:
                  characteristics:
                    - {uuid: fff1, framing: value, message: A}
                    - {uuid: zz}
                examples:
                  - {hex: xyz}
                """),
            """
            x.yaml:2: unknown key 'titel' in the definition; expected one of: protocol, title, endian, bind, framing, flags, enums, protobufs, types, messages, pairing, examples
            x.yaml:3: enum mode: key 'x' is not an integer
            x.yaml:5: message A from: 'watch'; expected phone or accessory
            x.yaml:6: field 'a': unknown type 'u5'; expected u1, u2le, u2be, u3le … u8be, s1 … s8be, b1 … b64, vlq, svarint, f2le … f8be, bytes, str, strz, protobuf
            x.yaml:6: field 'c': enum 'nope' is not defined under enums: (none is defined)
            x.yaml:10: characteristic uuid: 'zz' is not a UUID (2a19, 0xfff3 or 128-bit)
            x.yaml:12: example hex: not hex bytes
            """)
    }

    func testEveryErrorOfAFramingAndOfAClashingMessage() {
        XCTAssertEqual(
            definitionError(
                """
                protocol: tt
                framing:
                  magic: 0xa5
                  header: [command, sequence, length, bogus]
                  checksum: crc99
                  length-counts: nope
                messages:
                  - {id: 1, name: A}
                  - {id: 1, name: A}
                """),
            """
            x.yaml:4: framing header: unknown field 'bogus'; expected version, command, sequence, flags, length, fragment-count, fragment-index, {command: u2le}, {length: u2be}, {reserved: N} or {word: u2le, fields: {length: 0x03ff}}
            x.yaml:5: framing checksum: unknown algorithm 'crc99'; expected sum8, twos-complement8, xor8, sum16, a CRC's name from the catalogue (crc-16/kermit, crc-32, … in Dissectors/README.md), its parameters or none; did you mean crc-8?
            x.yaml:6: framing length-counts: 'nope'; expected payload, frame, after-length, payload-checksum, header-payload
            x.yaml:9: message name 'A' is already used at line 8
            x.yaml:9: duplicate command id 0x01: 'A' and 'A' (line 8) both decode it; give them different 'from:' if the id means different things each way
            """)
    }

    /// Int64's parser reads a sign after ours: `--9223372036854775808` gave Int64.min, whose
    /// negation trapped (SIGILL) while the file loaded. A second sign is not an integer.
    func testAnIntegerWithTwoSignsIsNotAnInteger() {
        XCTAssertEqual(
            definitionError("protocol: tt\nenums:\n  e: {--9223372036854775808: a}\n"),
            "x.yaml:3: enum e: key '--9223372036854775808' is not an integer")
        XCTAssertEqual(
            definitionError("protocol: tt\nenums:\n  e: {-0x-8000000000000000: a}\n"),
            "x.yaml:3: enum e: key '-0x-8000000000000000' is not an integer")
        XCTAssertEqual(YAMLValue.parseInteger("-9223372036854775807"), -9_223_372_036_854_775_807)
        XCTAssertEqual(YAMLValue.parseInteger("-0x10"), -16)
        XCTAssertEqual(YAMLValue.parseInteger("--5"), nil)
        XCTAssertEqual(YAMLValue.parseInteger("-9223372036854775808"), Int64.min)
        XCTAssertEqual(YAMLValue.parseInteger("9223372036854775808"), nil)
        XCTAssertEqual(YAMLValue.parseUnsigned("0xffffffffffffffff"), UInt64.max)
        XCTAssertEqual(YAMLValue.parseUnsigned("-1"), nil)
        XCTAssertEqual(YAMLValue.parseUnsigned("0x+1"), nil)
    }

    /// Double reads "1e-400" as 0, which scaled every value to nothing without a word.
    func testANumberTooCloseToZeroIsRefused() {
        XCTAssertEqual(
            definitionError("protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, scale: 1e-400}]}\n"),
            "x.yaml:3: field 'v' scale: '1e-400' is too close to zero for a number (the smallest is 2.2e-308)")
        XCTAssertEqual(
            definitionError(
                "protocol: tt\nmessages:\n  - {id: 1, name: M, seq: [{id: v, type: u1, scale: 0.0e-400}]}\n"),
            "no error")
    }

    func testHostileNestingIsRefusedBeforeParsing() {
        let deep =
            "protocol: tt\nx: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        XCTAssertEqual(definitionError(deep), "x.yaml:2: brackets nested deeper than 32")
    }

    func testNestedAliasesCannotExpandWithoutBound() {
        // Nine levels of ten aliases each: 10⁹ nodes once expanded.
        var yaml = "protocol: tt\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 {
            yaml += "l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        XCTAssertEqual(
            definitionError(yaml), "x.yaml:-: the file expands to more than 100000 YAML nodes (nested aliases?)")
        // Small aliases are fine.
        XCTAssertEqual(definitionError("protocol: tt\nenums: {a: &v {0: off}, b: *v}\n"), "no error")
    }

    func testHugeFilesAreRefused() {
        let huge = "protocol: tt\ntitle: \"" + String(repeating: "x", count: DefinitionParser.maxFileBytes) + "\"\n"
        XCTAssertEqual(
            definitionError(huge), "x.yaml:-: file of \(huge.utf8.count) bytes; definitions are limited to 1048576")
    }
}

extension XCTestCase {
    /// What parsing `yaml` as `x.yaml` says: its first error, or "no error".
    func definitionError(_ yaml: String) -> String {
        do {
            _ = try DefinitionParser.parse(text: yaml, file: "x.yaml")
            return "no error"
        } catch {
            return error.description
        }
    }
}
