import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// Dissectors/examples/pebble.yaml and meshtastic.yaml: their examples hold (what `btlens
/// dissectors check` replays), and a message of each decodes as their public documents say.
final class PayloadExampleFileTests: XCTestCase {
    func load(_ name: String) throws -> DefinitionDissector {
        try DefinitionLoader.load(file: packageRoot.appendingPathComponent("Dissectors/examples/\(name)").path)
    }

    func text(_ d: DefinitionDissector, _ command: UInt16, _ hex: String, from: Direction = .sent) -> String {
        let m = d.decode(
            Message(command: command, flags: nil, payload: Hex.bytes(hex) ?? [], direction: from, characteristic: nil))
        XCTAssertEqual(m.problems, [], hex)
        return (m.name ?? "?") + " " + MessageField.describe(m.fields)
    }

    func testPebbleExamplesHoldAndAppMessagesReadTheirTuples() throws {
        let d = try load("pebble.yaml")
        XCTAssertEqual(ExampleReplay.check(d).map(\.description), [])
        // libpebble2's AppMessagePush: command, transaction, UUID, count, tuples (key u32le, type,
        // length u16le, value).
        XCTAssertEqual(
            text(d, 0x30, "01 2a 00112233445566778899aabbccddeeff 02 01000000 01 0300 686900 02000000 02 0100 05"),
            #"AppMessage app_command=Push transaction_id=42 body={uuid=00112233445566778899aabbccddeeff count=2"#
                + #" tuples=[{key=1 type=CString size=3 value="hi"} {key=2 type=Uint size=1 value=05}]}"#)
        XCTAssertEqual(
            text(d, 0x0b, "03 65e1c340 003c 0d 4575726f70652f4c6f6e646f6e"),
            #"Time kind=SetUTC body={unix_time=2024-03-01T12:00:00Z utc_offset=60min tz_length=13 tz_name="Europe/London"}"#
        )
    }

    func testMeshtasticExamplesHoldAndPacketsReadByTheirSchema() throws {
        let d = try load("meshtastic.yaml")
        XCTAssertEqual(ExampleReplay.check(d).map(\.description), [])
        XCTAssertEqual(
            text(d, 0, "0a1215ffffffff22060801120268693504030201"),
            "ToRadio body={packet={to=4294967295 decoded={portnum=TEXT_MESSAGE_APP payload=6869} id=16909060}}")
        XCTAssertEqual(text(d, 0, "3801", from: .received), "FromRadio body={config_complete_id=1}")
    }
}
