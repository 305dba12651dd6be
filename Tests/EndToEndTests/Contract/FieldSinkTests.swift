import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions
@testable import BTLensReport

/// A frame's fields written into JSON or text as the decoder reads them (the JSONL and text
/// timelines' way) are the fields decoded as values and then written, for every kind of field and for every payload cut
/// short at each offset (the field the bytes ran out in is dropped, the ones before it kept), enum
/// names encoded once included.
final class FieldSinkTests: XCTestCase {
    func testFieldsWrittenAsReadEqualTheFieldsDecodedThenWritten() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                enums:
                  mode: {0: off, 1: on}
                  odd: {0: "say \\"hi\\"", 2: "café", 300: big, -1: minus}
                types:
                  cell:
                    seq:
                      - {id: id, type: u1}
                      - {id: mv, type: u2le}
                  wearing:
                    seq:
                      - {id: left, type: u1}
                      - {id: right, type: u1}
                messages:
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
                  - id: 2
                    name: Shown
                    seq:
                      - {id: mode, type: u1, enum: mode}
                      - {id: buds, type: u1, flags: {0x01: left, 0x02: right}}
                      - {id: volts, type: u2le, scale: 0.001, unit: V}
                      - {id: n, type: u1}
                      - {id: name, type: str, size: n}
                      - {id: rest, size: eos}
                  - id: 3
                    name: Enums
                    seq:
                      - {id: odd, type: u1, enum: odd}
                      - {id: wide, type: u2le, enum: odd}
                      - {id: signed, type: s1, enum: odd}
                """, file: "t.yaml")
        let payloads: [(UInt16, String)] = [
            (1, "02 01e803 02d007 01 0100 0909"), (1, "01 05e803 02 07d007"), (1, "00 07 abcd"),
            (2, "01 07 c409 03 414243 0102"), (2, "07 0f 0100 02 1b41"),
            // Enum names that need escaping, a number no name is given, one past 255, a negative one.
            (3, "00 2c01 ff"), (3, "01 0200 05"),
        ]
        for (command, hex) in payloads {
            let full = Hex.bytes(hex) ?? []
            for cut in 0...full.count {
                let message = Message(
                    command: command, flags: nil, payload: Array(full.prefix(cut)), direction: .sent,
                    characteristic: nil)
                var asValues = JSONWriter()
                let decoded = d.decode(message)
                asValues.beginObject()
                asValues.put(fields: decoded.fields)
                asValues.endObject()
                var asRead = JSONWriter()
                asRead.beginObject()
                let rest = d.decode(message, into: &asRead)
                asRead.endObject()
                XCTAssertEqual(
                    String(decoding: asRead.bytes, as: UTF8.self), String(decoding: asValues.bytes, as: UTF8.self),
                    "command \(command), \(cut) of \(full.count) bytes")
                XCTAssertEqual(rest.problems, decoded.problems)
                XCTAssertEqual(rest.fields, [])
                // The text timeline's way: the same text as the values described, terminal-safe.
                var asText = TextFields()
                _ = d.decode(message, into: &asText)
                XCTAssertEqual(
                    asText.line.string, TerminalText.safe(MessageField.describe(decoded.fields)),
                    "text: command \(command), \(cut) of \(full.count) bytes")
            }
        }
    }

    /// Types nested as deep as a definition may (32), each a repeated group: the text written as read
    /// keeps its separators at every level (two a type: a list and a group).
    func testDeepestNestingIsWrittenAsDescribed() throws {
        let depth = DefinitionParser.maxNesting
        var types = ""
        for i in 0..<depth {
            let inner = i + 1 < depth ? ", {id: in\(i), type: t\(i + 1), repeat: 1}" : ""
            types += "  t\(i):\n    seq: [{id: a\(i), type: u1}\(inner)]\n"
        }
        let d = try DefinitionParser.parse(
            text: """
                protocol: deep
                types:
                \(types.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
                messages:
                  - {id: 1, name: Deep, seq: [{id: top, type: t0, repeat: 1}]}
                """, file: "deep.yaml")
        let message = Message(
            command: 1, flags: nil, payload: (0..<255).map { UInt8($0) }, direction: .sent, characteristic: nil)
        var asText = TextFields()
        _ = d.decode(message, into: &asText)
        let described = TerminalText.safe(MessageField.describe(d.decode(message).fields))
        XCTAssertTrue(described.contains("[{a1=") && described.contains("}]}]"), described.prefix(80).description)
        XCTAssertEqual(asText.line.string, described)
    }
}
