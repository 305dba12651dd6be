import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// `framing: sequence-per:` read from a definition, and the load errors of one that cannot count.
final class SequencePerDefinitionTests: XCTestCase {
    func parse(_ sequencePer: String, header: String = "[sequence, length, {command: u2be}]") -> String {
        let yaml = "protocol: tt\nframing:\n  magic: 0xaa\n  header: \(header)\n  sequence-per: \(sequencePer)\n"
        do {
            guard case .frames(let f) = try DefinitionParser.parse(text: yaml, file: "x.yaml").framing else {
                return "no frames"
            }
            return "\(f.sequences.sent.name)/\(f.sequences.received.name)"
        } catch {
            return error.description
        }
    }

    func testScopesAreRead() {
        XCTAssertEqual(parse("command"), "command/command")
        XCTAssertEqual(parse("{phone: stream, accessory: none}"), "stream/none")
        XCTAssertEqual(parse("{accessory: command}"), "stream/command")
        XCTAssertEqual(parse("flags", header: "[flags, sequence, length]"), "flags/flags")
    }

    func testScopesThatCannotCountAreLoadErrors() {
        XCTAssertEqual(
            parse("service"),
            "x.yaml:5: framing sequence-per: 'service'; expected stream, none, command (the header's fields)")
        XCTAssertEqual(
            parse("flags"),
            "x.yaml:5: framing sequence-per: 'flags'; expected stream, none, command (the header's fields)")
        XCTAssertEqual(
            parse("command", header: "[length, command]"),
            "x.yaml:5: framing sequence-per: the header has no sequence field to count")
        XCTAssertEqual(
            parse("{phone: command, glasses: none}"),
            "x.yaml:5: unknown key 'glasses' in framing sequence-per; expected one of: phone, accessory")
    }
}
