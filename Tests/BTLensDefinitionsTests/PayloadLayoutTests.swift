import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// `stats` decodes without values (`Message.wantsFields` false), and skips the walk through the
/// fields when a message's `PayloadLayout` accepts the payload's size: the problems, name and kind
/// must be exactly those of the full decode, for every size.
final class PayloadLayoutTests: XCTestCase {
    static let definition = """
        protocol: tt
        enums:
          e: {0: a, 1: b}
        types:
          version: {seq: [{id: major, type: u1}, {id: minor, type: u1}, {id: patch, type: u2le}]}
        messages:
          - {id: 1, name: Empty}
          - {id: 2, name: Ints, seq: [{id: a, type: u1, enum: e}, {id: b, type: u2le}, {id: c, type: u4be}]}
          - {id: 3, name: Tail, seq: [{id: a, type: u1}, {id: rest, type: bytes, size: eos}]}
          - {id: 4, name: Text, seq: [{id: s, type: str, size: 3}, {id: t, type: str, size: eos}]}
          - {id: 5, name: Bytes, seq: [{id: u, type: u1, repeat: eos}]}
          - {id: 6, name: Wide, seq: [{id: u, type: u2le, repeat: eos}]}
          - {id: 7, name: Counted, seq: [{id: u, type: u2le, repeat: 3}, {id: v, type: u1}]}
          - {id: 8, name: Group, seq: [{id: v, type: version}, {id: f, type: u1}]}
          - {id: 9, name: Valid, seq: [{id: p, type: u1, valid: {min: 0, max: 100}}]}
          - {id: 10, name: Sized, seq: [{id: n, type: u1}, {id: d, type: bytes, size: n}]}
          - {id: 11, name: AfterTail, seq: [{id: r, type: bytes, size: eos}, {id: x, type: u1}]}
          - {id: 12, name: Flags, seq: [{id: f, type: u2le, flags: {0x01: x, 0x8000: y}}]}
        """

    func testLayoutsOfEachKindOfField() throws {
        let d = try DefinitionParser.parse(text: Self.definition, file: "t.yaml")
        let layouts = Dictionary(uniqueKeysWithValues: d.messages.map { ($0.name, $0.layout) })
        XCTAssertEqual(layouts["Empty"], PayloadLayout(size: 0, open: 0))
        XCTAssertEqual(layouts["Ints"], PayloadLayout(size: 7, open: 0))
        XCTAssertEqual(layouts["Tail"], PayloadLayout(size: 1, open: Int.max))
        XCTAssertEqual(layouts["Text"], PayloadLayout(size: 3, open: Int.max))
        XCTAssertEqual(layouts["Bytes"], PayloadLayout(size: 0, open: FieldDecoder.repeatLimit))
        XCTAssertEqual(layouts["Counted"], PayloadLayout(size: 7, open: 0))
        XCTAssertEqual(layouts["Group"], PayloadLayout(size: 5, open: 0))
        XCTAssertEqual(layouts["Flags"], PayloadLayout(size: 2, open: 0))
        // Decided by the bytes: walked.
        for name in ["Wide", "Valid", "Sized", "AfterTail"] { XCTAssertEqual(layouts[name], .some(nil), name) }
    }

    func testCountsDecodeSaysWhatTheFullDecodeSays() throws {
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.shipped)
            .filter { $0.hasSuffix(".yaml") }.sorted()
            .map {
                try DefinitionParser.parse(
                    text: String(contentsOfFile: Self.shipped + "/" + $0, encoding: .utf8), file: $0)
            }
        XCTAssertGreaterThan(shipped.count, 1)
        var compared = 0
        for d in [try DefinitionParser.parse(text: Self.definition, file: "t.yaml")] + shipped {
            for m in d.messages {
                for direction in [Direction.sent, .received] {
                    for size in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 64, 4096, 4097, 4200] {
                        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 37) }
                        func decode(_ wantsFields: Bool) -> DecodedMessage {
                            d.decode(
                                Message(
                                    command: m.id, flags: 0x03, payload: payload, direction: m.from ?? direction,
                                    characteristic: nil, wantsFields: wantsFields))
                        }
                        let full = decode(true)
                        let counts = decode(false)
                        XCTAssertEqual(counts.problems, full.problems, "\(d.name) \(m.name) \(size) bytes")
                        XCTAssertEqual(counts.name, full.name)
                        XCTAssertEqual(counts.kind, full.kind)
                        XCTAssertEqual(counts.fields, [])
                        compared += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 500)
    }

    static let shipped = packageRoot.appendingPathComponent("Dissectors").path
}
