import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// The exported plugin's fields against the declared JSONL fields (`EventFields`): a Wireshark field
/// named as a JSONL key (a frame's `<protocol>.command`, the iAP2 link's `iap2.psn`) is declared for
/// the event type it shows, with the same type; the others are Wireshark's own, listed here, so a
/// new field is one or the other.
final class WiresharkExportFieldTests: XCTestCase {
    /// Fields of the frame's tree that JSONL has not: where the frame's bytes are, the request's
    /// link to its response, and an encrypted payload's bytes (JSONL's `payload` and `encrypted`).
    private static let frameOnly: Set<String> = [
        "fragment_index", "fragment_count", "length", "packets", "response_in", "encrypted_payload",
    ]
    /// The iAP2 link packet's header and control message fields, which JSONL sums up in `kind` and
    /// `detail` or gives as other events; `payload`, which it gives as `payload_length`.
    private static let iap2Only: Set<String> = [
        "detect", "iap1", "start", "length", "control", "header_checksum", "payload", "payload_checksum",
        "fragment", "fragment_count", "retransmission_of", "msg", "param", "accessory",
    ]

    func testTheExportedFieldsAreTheDeclaredOnes() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                bind:
                  ea-protocols: [com.example.t]
                messages:
                  - {id: 1, name: A, seq: [{id: level, type: u1}]}
                """, file: "t.yaml")
        let lua = WiresharkExport.lua([d], version: "1")
        let frame = Self.fields(in: lua, pattern: #"ProtoField\.(\w+)\(c\.id \.\. "\.(\w+)""#)
        let iap2 = Self.fields(in: lua, pattern: #"ProtoField\.(\w+)\("iap2\.(\w+)""#)
        XCTAssertTrue(frame.keys.contains("command") && iap2.keys.contains("psn"), "no fields found in the export")
        check(frame, against: .a5, except: Self.frameOnly)
        check(iap2, against: .iap2, except: Self.iap2Only)
    }

    private func check(_ exported: [String: String], against t: EventType, except: Set<String>) {
        let declared = Dictionary(uniqueKeysWithValues: EventFields.fields(of: t).map { ($0.key, $0.type) })
        for (name, kind) in exported.sorted(by: { $0.key < $1.key }) where !except.contains(name) {
            guard let type = declared[name] else {
                XCTFail("the export's \(name) is no \(t.name) field: declare it, or list it as Wireshark's own")
                continue
            }
            XCTAssertEqual(Self.type(of: kind), type, "\(t.name).\(name) is exported as ProtoField.\(kind)")
        }
    }

    /// The exported fields' last names and ProtoField kinds (`uint8`, `string`, …).
    private static func fields(in lua: String, pattern: String) -> [String: String] {
        let regex = try? NSRegularExpression(pattern: pattern)
        let range = NSRange(lua.startIndex..., in: lua)
        var out: [String: String] = [:]
        for m in regex?.matches(in: lua, range: range) ?? [] {
            guard let kind = Range(m.range(at: 1), in: lua), let name = Range(m.range(at: 2), in: lua) else { continue }
            out[String(lua[name])] = String(lua[kind])
        }
        return out
    }

    /// The JSONL type a ProtoField kind shows as.
    private static func type(of kind: String) -> FieldType? {
        if kind.hasPrefix("uint") || kind.hasPrefix("int") || kind == "framenum" { return .integer }
        switch kind {
        case "double", "float": return .number
        case "string": return .string
        case "bytes": return .bytes
        case "bool": return .boolean
        default: return nil
        }
    }
}

/// A message field named as one of the frame's fields (Pebble's AppMessage `command`, a tuple's
/// `length`) is declared under another key: it replaced the frame's `command`, which then showed
/// the field's values.
final class WiresharkExportFieldNameTests: XCTestCase {
    func testAFieldNamedAsAFrameFieldIsDeclaredApart() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                messages:
                  - {id: 1, name: A, seq: [{id: command, type: u1}, {id: length, type: u2le}, {id: level, type: u1}]}
                """, file: "t.yaml")
        let lua = WiresharkExport.lua([d], version: "1")
        XCTAssertTrue(lua.contains(#"["command_2"] = { n = "command", t = "int", w = 1, s = false },"#), lua)
        XCTAssertTrue(lua.contains(#"["length_2"] = { n = "length", t = "int", w = 2, s = false },"#))
        XCTAssertTrue(lua.contains(#"["level"] = { n = "level", t = "int", w = 1, s = false },"#))
        XCTAssertFalse(lua.contains(#"["command"] = {"#))
    }
}
