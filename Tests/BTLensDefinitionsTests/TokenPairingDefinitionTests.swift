import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// `pairing: match: {field: PATH}` and `{echo: PATH}`: the path checked at load, and the token a
/// message carries.
final class TokenPairingDefinitionTests: XCTestCase {
    static let messages = """
        types:
          header: {seq: [{id: kind, type: u1}, {id: tag, type: u2le}]}
        messages:
          - {id: 1, name: Get, from: phone, seq: [{id: head, type: header}, {id: body, type: protobuf}]}
          - {id: 1, name: Got, from: accessory, seq: [{id: head, type: header}, {id: body, type: protobuf}]}
          - {id: 0x60, name: Response, from: accessory, seq: [{id: op, type: u1}, {id: result, type: u1}]}
        """

    func load(_ match: String) -> Result<DefinitionDissector, DefinitionErrors> {
        let yaml = "protocol: tt\nframing: event-byte\n\(Self.messages)\npairing:\n  match: \(match)\n"
        do {
            return .success(try DefinitionParser.parse(text: yaml, file: "x.yaml"))
        } catch {
            return .failure(error)
        }
    }

    func error(_ match: String) -> String {
        switch load(match) {
        case .success: return "loaded"
        case .failure(let e): return e.description
        }
    }

    func testPathsAreCheckedAtLoad() {
        XCTAssertEqual(error("{field: head.tag}"), "loaded")
        XCTAssertEqual(error("{field: body.2.1}"), "loaded")
        XCTAssertEqual(error("{echo: op}"), "loaded")
        XCTAssertEqual(
            error("{field: token}"),
            "x.yaml:10: pairing match field: no message has field 'token'; fields: head, body, op, result")
        XCTAssertEqual(
            error("{field: head.id}"), "x.yaml:10: pairing match field: head has no field 'id'; fields: kind, tag")
        XCTAssertEqual(
            error("{field: body.x}"), "x.yaml:10: pairing match field: 'x' in body, a protobuf, is no field number")
        XCTAssertEqual(error("{echo: op.low}"), "x.yaml:10: pairing match echo: op is a value, with no fields inside")
        XCTAssertEqual(
            error("{token: op}"),
            "x.yaml:10: pairing match: expected {field: NAME} or {echo: NAME} (a field path such as body.2)")
        XCTAssertEqual(error("echo"), "x.yaml:10: pairing match: echo names its field: {echo: NAME}")
    }

    /// The token is the value at the path: a nested group's integer, a protobuf field's number,
    /// and for an echo the request's own command.
    func testTokensAreReadFromThePayload() throws {
        let d = try load("{field: body.2}").get()
        // head {kind 1, tag 0x0203}, body {1: 4, 2: 12} (protobuf encoding: 08 04 10 0c).
        let payload: [UInt8] = [0x01, 0x03, 0x02, 0x08, 0x04, 0x10, 0x0c]
        func message(_ payload: [UInt8]) -> Message {
            Message(command: 1, flags: nil, payload: payload, direction: .sent, characteristic: nil)
        }
        XCTAssertEqual(d.pairingToken(message(payload)), "12")
        XCTAssertNil(d.pairingToken(message(Array(payload.prefix(5)))), "field 2 is absent")
        XCTAssertEqual(try load("{field: head.tag}").get().pairingToken(message(payload)), "515")
        let echo = try load("{echo: op}").get()
        XCTAssertEqual(echo.pairing?.responseCommand, .any)
        XCTAssertEqual(
            echo.pairingToken(
                Message(command: 0x60, flags: nil, payload: [0x06, 0x01], direction: .received, characteristic: nil)),
            "6")
    }
}
