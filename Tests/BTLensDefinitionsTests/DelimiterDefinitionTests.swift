import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// `framing: delimiter:` in a definition: named framings replayed on examples written by hand
/// from their specifications, and the load errors of marks that cannot work.
final class DelimiterDefinitionTests: XCTestCase {
    func testASLIPFramingReplaysItsExample() throws {
        // SLIP (RFC 1055): C0 ends a frame, C0 inside is DB DC. Command 07, payload C0 01, xor8 = 0xc6.
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                framing: {delimiter: slip, header: [command], checksum: xor8}
                messages:
                  - {id: 7, name: Seven, seq: [{id: a, type: u1}, {id: b, type: u1}]}
                examples:
                  - hex: c0 07 db dc 01 c6 c0
                    expect: {name: Seven, fields: {a: 192, b: 1}}
                """, file: "t.yaml")
        XCTAssertEqual(ExampleReplay.check(d).map(\.description), [])
        guard case .frames(let format) = d.framing else { return XCTFail("no frames") }
        XCTAssertEqual(format.delimiting, .slip)
        XCTAssertEqual(format.magic, [])
    }

    func testAMaximumLengthIsReadAndBounded() throws {
        let d = try DefinitionParser.parse(
            text: "protocol: tt\nframing: {magic: 0x94c3, header: [{length: u2be}], max-length: 516}\n", file: "t.yaml")
        guard case .frames(let format) = d.framing else { return XCTFail("no frames") }
        XCTAssertEqual(format.maxLength, 516)
        XCTAssertThrowsError(
            try DefinitionParser.parse(
                text: "protocol: tt\nframing: {magic: 0x94c3, header: [{length: u2be}], max-length: 70000}\n",
                file: "t.yaml")
        ) { error in
            XCTAssertEqual("\(error)", "t.yaml:2: framing max-length: 70000 is outside 1…65536")
        }
    }

    func testMarksThatCannotWorkAreLoadErrors() {
        func error(_ delimiter: String, header: String = "[command]") -> String {
            let yaml = "protocol: tt\nframing:\n  delimiter: \(delimiter)\n  header: \(header)\n"
            do {
                _ = try DefinitionParser.parse(text: yaml, file: "x.yaml")
                return "loaded"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(error("{end: 0x7e, escape: 0x7d, xor: 0x20}"), "loaded")
        XCTAssertEqual(
            error("slipp"),
            "x.yaml:3: framing delimiter: 'slipp'; expected slip, hdlc, cobs or a mapping with end, start, escape, xor, codes"
        )
        XCTAssertEqual(
            error("{start: 0x7e, end: 0x7e}"),
            "x.yaml:3: framing delimiter: start and end are the same byte; give end only")
        XCTAssertEqual(
            error("{end: 0x7e, escape: 0x7e, xor: 0x20}"),
            "x.yaml:3: framing delimiter: the escape byte is also a delimiter")
        XCTAssertEqual(
            error("{end: 0x7e, escape: 0x7d, xor: 0x03}"),
            "x.yaml:3: framing delimiter xor: 0x7e escaped is 0x7d, itself a mark")
        XCTAssertEqual(
            error("{end: 0xc0, escape: 0xdb, codes: {0xdc: 0xc0}}"),
            "x.yaml:3: framing delimiter codes: every mark (end, start, escape) needs a code standing for it")
        XCTAssertEqual(
            error("{end: 0x7e, xor: 0x20}"), "x.yaml:3: framing delimiter: xor and codes need an escape byte")
        XCTAssertEqual(
            error("{end: 0x7e, escape: 0x7d}"),
            "x.yaml:3: framing delimiter: an escape needs exactly one of xor or codes")
        XCTAssertEqual(
            error("slip\n  end: 0xef"), "x.yaml:4: framing end: a delimited framing ends with its delimiter's end byte")
        XCTAssertEqual(
            error("cobs", header: "[command, command]"),
            "x.yaml:4: framing header: expected at most one command and at most one length field, found 2 and 0")
    }
}
