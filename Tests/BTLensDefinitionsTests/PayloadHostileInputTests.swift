import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// The payload types fed random payloads: any trap fails the run. Deterministic seeds, bounded work;
/// values kept and not (as `stats` decodes) must raise the same problems.
final class PayloadHostileInputTests: XCTestCase {
    func testEveryPayloadTypeSurvivesRandomPayloads() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                enums: {e: {0: a, 1: b}}
                types:
                  inner: {seq: [{id: n, type: vlq}, {id: f, type: f2be}, {id: s, type: strz}]}
                protobufs:
                  P:
                    1: {id: a, type: sint64, repeated: true}
                    2: {id: b, type: message, message: P}
                    3: {id: c, type: double}
                    4: {id: d, type: enum, enum: e}
                    5: {id: s, type: string}
                messages:
                  - id: 1
                    name: M
                    seq:
                      - {id: a, type: b3}
                      - {id: b, type: b13, valid: {max: 4000}}
                      - {id: n, type: vlq}
                      - {id: z, type: svarint, time: unix-ms}
                      - {id: t, type: s3le, time: unix-s}
                      - {id: f, type: f4le, unit: V}
                      - {id: g, type: f8be}
                      - {id: name, type: strz, size: n}
                      - {id: pad, type: str, size: 3, pad-right: 0}
                      - {id: items, type: {tlv: {tag: u1, length: u1, values: {1: inner, 2: b5, 3: {protobuf: P}}}}}
                  - {id: 2, name: Q, seq: [{id: body, type: {protobuf: P}}]}
                """, file: "t.yaml")
        var rng = SplitMix(seed: 42)
        // Payloads that reached the TLV list, and protobufs read two deep: the random bytes go deep.
        var lists = 0
        var nested = 0
        for i in 0..<4000 {
            var payload = rng.bytes(rng.below(400))
            // Protobuf-like bytes: small tags and lengths, continuation bits.
            for j in payload.indices where rng.below(3) == 0 {
                payload[j] = [0x08, 0x12, 0x0a, 0x80, 0x02][rng.below(5)]
            }
            let command = UInt16(1 + i % 2)
            let shown = d.decode(
                Message(command: command, flags: nil, payload: payload, direction: .sent, characteristic: nil))
            let counted = d.decode(
                Message(
                    command: command, flags: nil, payload: payload, direction: .sent, characteristic: nil,
                    wantsFields: false))
            XCTAssertEqual(counted.problems.map(\.message), shown.problems.map(\.message))
            if shown.fields.count == 10 { lists += 1 }
            if MessageField.describe(shown.fields).contains("b={") { nested += 1 }
        }
        XCTAssertGreaterThan(lists, 10)
        XCTAssertGreaterThan(nested, 10)
    }
}
