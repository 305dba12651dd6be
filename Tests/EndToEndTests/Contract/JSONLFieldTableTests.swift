import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// The JSONL writer against the declared fields (`EventFields`): every key of every line of every
/// sample and hostile capture, verbose and with the bundled definitions and an app log, is either
/// declared for the line's type, with the JSON type declared, or a parameter of a type that has
/// them, under a known name (`ParameterNames`, or another type's field); and every type is written.
final class JSONLFieldTableTests: XCTestCase {
    private var root: URL { JSONContractTests.root }

    func testEveryKeyWrittenIsDeclaredWithItsType() throws {
        var seen: [EventType: Set<String>] = [:]
        for arguments in try runs() {
            let run = try runCLI(arguments, cwd: root.path)
            for (n, line) in run.stdout.split(separator: "\n").enumerated() {
                guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
                    case .string(let name)? = object["type"]
                else {
                    XCTFail("not an object with a type: \(line)")
                    continue
                }
                let type = try XCTUnwrap(EventType.allCases.first { $0.name == name }, "type \(name)")
                let declared = Dictionary(uniqueKeysWithValues: EventFields.fields(of: type).map { ($0.key, $0) })
                for (key, value) in object {
                    seen[type, default: []].insert(key)
                    let place = "\(arguments[1]) line \(n + 1): \(name).\(key)"
                    if let field = declared[key] {
                        XCTAssertTrue(Self.holds(value, field), "\(place) is \(value), declared \(field.type)")
                    } else {
                        XCTAssertTrue(
                            EventFields.hasParameters(type)
                                && (ParameterNames.all.contains(key) || EventFields.keys.contains(key)
                                    || ParameterNames.isAttributeDetail(key)),
                            "\(place) is not declared")
                    }
                }
            }
        }
        XCTAssertEqual(Set(seen.keys), Set(EventType.allCases), "types never written")
    }

    /// Each sample capture, verbose; the app log's capture with its log; the hostile captures.
    private func runs() throws -> [[String]] {
        let samples = root.appendingPathComponent("Captures")
        let files = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter {
            $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pklg") || $0.hasSuffix(".pcap")
        }.sorted()
        var runs = files.map {
            ["timeline", samples.appendingPathComponent($0).path, "--format", "jsonl", "--verbose"]
        }
        runs.append([
            "timeline", samples.appendingPathComponent("ble_app_log.btsnoop").path, "--format", "jsonl",
            "--app-log", samples.appendingPathComponent("ble_app_log.app.log").path,
        ])
        let hostile = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-fields-\(getpid())")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: hostile) }
        for c in HostileCaptures.all(zeroLengthRecords: 10) {
            let url = hostile.appendingPathComponent(c.file)
            try Data(c.bytes).write(to: url)
            runs.append(["timeline", url.path, "--format", "jsonl", "--verbose"])
        }
        let rare = hostile.appendingPathComponent("rare.btsnoop")
        try Data(Self.rareEvents()).write(to: rare)
        runs.append(["timeline", rare.path, "--format", "jsonl", "--verbose"])
        let sniffer = hostile.appendingPathComponent("sniffer.pcap")
        try Data(SnifferCapture.bytes()).write(to: sniffer)
        runs.append(["timeline", sniffer.path, "--format", "jsonl", "--verbose"])
        return runs
    }

    /// What no sample has: an SMP Pairing Request, and a long write the client cancels (Core 5.4
    /// Vol 3 Part H §3.5.1; Part F §3.4.6.1 and §3.4.6.3, Execute Write with flags 0x00); a
    /// Qualcomm debug log and memory dump's first packet (docs/protocols/vendor-hci.md).
    private static func rareEvents() -> [UInt8] {
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.l2cap(handle: 0x40, .sent, cid: 0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        s.att(handle: 0x40, .sent, [0x16, 0x13, 0x00, 0x00, 0x00, 0x01, 0x02])
        s.att(handle: 0x40, .received, [0x17, 0x13, 0x00, 0x00, 0x00, 0x01, 0x02])
        s.att(handle: 0x40, .sent, [0x18, 0x00])
        s.att(handle: 0x40, .received, [0x19])
        s.writer.add(.acl, .received, [0xdc, 0x2e, 0x02, 0x00, 0x01, 0x02], time: s.tick())
        let dump: [UInt8] = [0xdd, 0x2e, 0x0b, 0x00, 0xff, 0x09, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]
        s.writer.add(.acl, .received, dump, time: s.tick())
        return s.bytes
    }

    /// Whether a JSON value is of the declared type.
    private static func holds(_ value: JSONValue, _ field: EventField) -> Bool {
        switch (value, field.type) {
        case (.null, _): return field.nullable
        case (.integer, .integer), (.integer, .number), (.number, .number), (.bool, .boolean): return true
        case (.number(let d), .integer): return d.rounded() == d  // past Int64, written exactly
        case (.string, .string), (.string, .time), (.string, .uuid), (.array, .array), (.object, .object): return true
        case (.string(let s), .bytes): return s.allSatisfy { $0.isHexDigit && !$0.isUppercase }
        default: return false
        }
    }
}

/// A JSON value by its JSON type, as a decoder tells them apart (true is no number, 1 no boolean).
private enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }
}
