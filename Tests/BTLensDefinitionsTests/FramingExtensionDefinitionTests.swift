import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Header words of bit fields, `length-adjust`, `header-payload`, `size`, checksum ranges and
/// checksums on whole values: read from a definition, and the load errors of those that cannot work.
final class FramingExtensionDefinitionTests: XCTestCase {
    private func format(_ framing: String) throws -> FrameFormat {
        let d = try DefinitionParser.parse(text: "protocol: tt\nframing: \(framing)\n", file: "t.yaml")
        guard case .frames(let f) = d.framing else { throw XCTSkip("no frames") }
        return f
    }

    /// The error a framing gives, as `FILE:LINE: message`.
    private func error(_ framing: String) -> String {
        do {
            _ = try DefinitionParser.parse(text: "protocol: tt\nframing: \(framing)\n", file: "t.yaml")
            return "no error"
        } catch { return "\(error)" }
    }

    func testAGalaxyBudsFramingIsRead() throws {
        let f = try format(
            "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x03ff, flags: 0x3000}}, command],"
                + " length-counts: after-length, length-adjust: 1,"
                + " checksum: {algorithm: crc-16/xmodem, covers: [command, payload], endian: le}, end: 0xdd}")
        XCTAssertEqual(
            f.header,
            [
                .word(width: 2, bigEndian: false, bits: [.init(.length, mask: 0x3ff), .init(.flags, mask: 0x3000)]),
                .command(width: 1, bigEndian: true),
            ])
        XCTAssertEqual(f.lengthAdjust, 1)
        XCTAssertEqual(f.checksum?.span, FrameFormat.Span(from: 3, to: nil))
        XCTAssertEqual(f.lengthFieldEnd, 3)
    }

    /// Ranges that are one of the three named coverages are those; others are spans.
    func testChecksumRangesBecomeTheNamedCoveragesWhereTheyAreOne() throws {
        let header = "magic: 0xaa, header: [command, length]"
        let payload = try format("{\(header), checksum: {algorithm: xor8, covers: [payload]}}").checksum
        XCTAssertEqual(payload?.covers, .payload)
        XCTAssertNil(payload?.span)
        let after = try format("{\(header), checksum: {algorithm: xor8, covers: {from: command, to: payload}}}")
        XCTAssertEqual(after.checksum?.covers, .afterMagic)
        let head = try format("{\(header), checksum: {algorithm: xor8, covers: {from: magic, to: length}}}")
        XCTAssertEqual(head.checksum?.span, FrameFormat.Span(from: 0, to: 3))
    }

    func testSizesAndLengthCounts() throws {
        XCTAssertEqual(try format("{magic: 0x7e, header: [command], size: 20, checksum: xor8}").size, 20)
        XCTAssertEqual(
            try format("{magic: 0x7e, header: [length, command], length-counts: header-payload}").lengthCounts,
            .headerAndPayload)
    }

    func testAGoveeValueFramingIsRead() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                framing: {value: event-byte, checksum: {algorithm: xor8, covers: value}}
                messages:
                  - {id: 0x33, name: Command, seq: [{id: command, type: u1}, {id: rest, type: bytes}]}
                examples:
                  - hex: 33 01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 33
                    expect: {name: Command, fields: {command: 1, rest: 0100000000000000000000000000000000}}
                  - hex: 33 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 33
                """, file: "t.yaml")
        XCTAssertEqual(d.framing, .values(commandByte: true, checksum: FrameFormat.Checksum(.xor8)))
        XCTAssertEqual(
            ExampleReplay.check(d).map(\.description),
            ["t.yaml:8: example: a5.checksum.bad: command 0x33: checksum 0x33, expected 0x32"])
    }

    func testFramingsThatCannotWorkAreLoadErrors() {
        let cases: [(String, String)] = [
            (
                "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x0505}}]}",
                "t.yaml:2: framing header word fields length: 0x0505 is not one run of bits"
            ),
            (
                "{magic: 0xfd, header: [{word: u1, fields: {length: 0x1ff}}]}",
                "t.yaml:2: framing header word fields length (8 bits): 511 is outside 1…255"
            ),
            (
                "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x03ff, flags: 0x0300}}]}",
                "t.yaml:2: framing header word fields flags: its bits overlap another field's"
            ),
            (
                "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x00ff, flags: 0xff00, sequence: 0}}]}",
                "t.yaml:2: framing header word fields sequence (16 bits): 0 is outside 1…65535"
            ),
            (
                "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x00ff, flags: 0x0f00}}, flags]}",
                "t.yaml:2: framing header: flags is given twice (a byte of its own, or bits of a word)"
            ),
            (
                "{magic: 0xfd, header: [{word: u2le, fields: {length: 0x03ff, response: 0x1000}}]}",
                "t.yaml:2: framing header word fields: unknown field 'response'; expected length, command, sequence or flags (a flag bit is named under the file's flags: by its value in the flags field)"
            ),
            (
                "{magic: 0xfd, header: [{word: u3, fields: {length: 0x03ff}}]}",
                "t.yaml:2: framing header word: 'u3'; expected u1, u2le, u2be, u4le or u4be"
            ),
            (
                "{magic: 0xaa, header: [command, length], checksum: {algorithm: xor8, covers: [command, crc]}}",
                "t.yaml:2: framing checksum covers: 'crc' is not a part of the frame; expected one of magic, command, length, payload"
            ),
            (
                "{magic: 0xaa, header: [command, length], checksum: {algorithm: xor8, covers: [magic, payload]}}",
                "t.yaml:2: framing checksum covers: 'payload' does not follow the part before it; name consecutive parts in wire order, or write {from: FIRST, to: LAST}"
            ),
            (
                "{magic: 0xaa, header: [command, length], checksum: {algorithm: xor8, covers: {from: payload, to: command}}}",
                "t.yaml:2: framing checksum covers: 'command' does not follow the part before it; name consecutive parts in wire order, or write {from: FIRST, to: LAST}"
            ),
            (
                "{magic: 0x7e, header: [command, length], size: 20}",
                "t.yaml:2: framing size: frames of a fixed size have no length field; remove it"
            ),
            (
                "{magic: 0x7e, header: [command], size: 2, checksum: sum16}",
                "t.yaml:2: framing size: 2 bytes cannot hold the magic, header, checksum and end (4 bytes)"
            ),
            (
                "{delimiter: slip, header: [command], size: 8}",
                "t.yaml:2: framing size: a delimited frame ends at its delimiter"
            ),
            (
                "{magic: 0x7e, header: [command], size: 8, length-adjust: 1}",
                "t.yaml:2: framing length-adjust: the header has no length field to adjust"
            ),
            (
                "{magic: 0x7e, header: [command, length], length-adjust: 70000}",
                "t.yaml:2: framing length-adjust: 70000 is outside -65535…65535"
            ),
            ("{value: events, checksum: xor8}", "t.yaml:2: framing value: 'events'; expected whole or event-byte"),
            (
                "{value: whole}",
                "t.yaml:2: framing: a value framing without a checksum is written value or event-byte"
            ),
            (
                "{value: whole, checksum: {algorithm: xor8, covers: after-magic}}",
                "t.yaml:2: framing checksum covers: 'after-magic'; expected value or payload for a value framing"
            ),
        ]
        for (framing, expected) in cases { XCTAssertEqual(error(framing), expected, framing) }
    }
}

extension FramingExtensionDefinitionTests {
    func testAPreambleIsTextHexOrBytes() throws {
        let head = "protocol: tt\nframing: {magic: 0x01fe0000, header: [command, length], preamble: "
        for (written, bytes) in [("BT-READY", Array("BT-READY".utf8)), ("0x0d0a", [0x0d, 0x0a]), ("[1, 2]", [1, 2])] {
            let d = try DefinitionParser.parse(text: head + written + "}\n", file: "t.yaml")
            guard case .frames(let f) = d.framing else { return XCTFail("no frames") }
            XCTAssertEqual(f.preamble, bytes, written)
        }
        XCTAssertThrowsError(try DefinitionParser.parse(text: head + "[]}\n", file: "t.yaml")) {
            XCTAssertEqual("\($0)", "t.yaml:2: framing preamble: expected 1 to 64 bytes, found 0")
        }
    }
}

extension FramingExtensionDefinitionTests {
    /// ESP BluFi's framing: a checksum where a flag says, messages in frames flagged 0x10.
    func testFlagDrivenChecksumsAndFragments() throws {
        let head = "protocol: tt\nframing: {magic: none, header: [command, flags, sequence, length]"
        let d = try DefinitionParser.parse(
            text: head
                + ", checksum: {algorithm: crc-16/genibus, flag: 0x02}, more-follows: {flag: 0x10, total: u2le}}\n",
            file: "t.yaml")
        guard case .frames(let f) = d.framing else { return XCTFail("no frames") }
        XCTAssertEqual(f.checksum?.flag, 0x02)
        XCTAssertEqual(f.more, FrameFormat.MoreFollows(flag: 0x10, totalWidth: 2))
        let cases: [(String, String)] = [
            (
                "protocol: tt\nframing: {magic: none, header: [command, length], checksum: {algorithm: xor8, flag: 2}}\n",
                "t.yaml:2: framing checksum flag: the header has no flags field to carry it"
            ),
            (
                "protocol: tt\nframing: {magic: none, header: [command, length], more-follows: {flag: 0x10}}\n",
                "t.yaml:2: framing more-follows: the header has no flags field to carry the flag"
            ),
            (
                head + ", more-follows: {flag: 0x10, total: u3}}\n",
                "t.yaml:2: framing more-follows total: 'u3'; expected u1, u2le, u2be, u4le or u4be"
            ),
            (
                "protocol: tt\nframing: {magic: 0xaa, header: [flags, length, fragment-count, fragment-index],"
                    + " more-follows: {flag: 1}}\n",
                "t.yaml:2: framing more-follows: a message is split by fragment-count and fragment-index or by a flag, not both"
            ),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try DefinitionParser.parse(text: text, file: "t.yaml"), text) {
                XCTAssertEqual("\($0)", expected)
            }
        }
    }
}
