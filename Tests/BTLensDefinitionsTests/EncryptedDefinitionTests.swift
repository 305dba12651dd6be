import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// `encrypted:` on a framing (a flag bit) and on a message: what decodes, and the load errors.
final class EncryptedDefinitionTests: XCTestCase {
    func parse(_ framing: String, _ message: String) throws -> DefinitionDissector {
        try DefinitionParser.parse(
            text: "protocol: tt\nframing: \(framing)\nmessages:\n  - \(message)\n", file: "x.yaml")
    }

    func error(_ framing: String, _ message: String = "{id: 1, name: A}") -> String {
        do {
            _ = try parse(framing, message)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    /// A frame whose flag bit is set, and a message said to be encrypted, keep their bytes and
    /// find no problem; the same message without the bit decodes.
    func testEncryptedPayloadsAreNotDecoded() throws {
        let d = try parse(
            "{magic: 0xaa, header: [flags, length, command], encrypted: {flag: 0x01}}",
            "{id: 1, name: A, seq: [{id: level, type: u1}]}")
        func decode(_ flags: UInt8, _ payload: [UInt8]) -> DecodedMessage {
            d.decode(Message(command: 1, flags: flags, payload: payload, direction: .sent, characteristic: nil))
        }
        XCTAssertEqual(decode(0x00, [7]).fields, [MessageField("level", .uint(7))])
        XCTAssertFalse(decode(0x00, [7]).encrypted)
        let sealed = decode(0x03, [1, 2, 3])
        XCTAssertTrue(sealed.encrypted)
        XCTAssertEqual(sealed.name, "A")
        XCTAssertEqual(sealed.fields, [])
        XCTAssertEqual(sealed.problems, [])
        let key = try parse("event-byte", "{id: 2, name: Key, encrypted: true}")
        let k = key.decode(Message(command: 2, flags: nil, payload: [9, 9], direction: .sent, characteristic: nil))
        XCTAssertTrue(k.encrypted)
        XCTAssertEqual(k.problems, [])
    }

    func testEncryptionThatCannotBeSaidIsALoadError() {
        XCTAssertEqual(
            error("{magic: 0xaa, header: [length, command], encrypted: {flag: 0x01}}"),
            "x.yaml:2: framing encrypted: the header has no flags field for the bit to be in")
        XCTAssertEqual(
            error("{magic: 0xaa, header: [flags, length], encrypted: {flag: 0}}"),
            "x.yaml:2: framing encrypted flag: 0 is outside 1…255")
        XCTAssertEqual(
            error("event-byte", "{id: 1, name: A, encrypted: yes}"),
            "x.yaml:4: message A encrypted: 'yes'; expected true or false")
        XCTAssertEqual(
            error("event-byte", "{id: 1, name: A, encrypted: true, seq: [{id: a, type: u1}]}"),
            "x.yaml:4: message A: an encrypted payload is not decoded; remove its seq")
    }
}
