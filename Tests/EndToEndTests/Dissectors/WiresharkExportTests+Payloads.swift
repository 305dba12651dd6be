import BTLensCore
import BTLensDefinitions
import BTLensTestSupport
import Foundation
import XCTest

/// Payload types (varints, 24-bit integers, floats, strz, padded str, times) in btlens and in the
/// exported plugin: the same frames, names and diagnostics, and the same values.
extension WiresharkExportTests {
    static let payloadDefinition = """
        protocol: payload-types
        bind:
          characteristics:
            - {uuid: fff9, role: command}
        framing:
          magic: none
          header: [{length: u2be}, {command: u2be}]
        enums:
          mode: {-1: off, 1: on}
          op: {10: write}
        protobufs:
          Info:
            1: {id: label, type: string}
            2: {id: level, type: sint32, repeated: true}
            3: {id: inner, type: message, message: Info}
            4: {id: mode, type: enum, enum: mode}
        messages:
          - id: 1
            name: Numbers
            seq:
              - {id: n, type: vlq}
              - {id: z, type: svarint, enum: mode}
              - {id: a, type: u3le}
              - {id: b, type: s3be}
              - {id: h, type: f2le}
              - {id: f, type: f4be, unit: V}
              - {id: d, type: f8le}
              - {id: items, type: u1, repeat: n}
          - id: 2
            name: Texts
            seq:
              - {id: name, type: strz}
              - {id: model, type: str, size: 8, pad-right: 0}
              - {id: at, type: u4le, time: unix-s}
              - {id: ms, type: u8le, time: unix-ms}
          - id: 3
            name: Bits
            seq:
              - {id: op, type: b4, enum: op}
              - {id: count, type: b4}
              - {id: long, type: b12}
              - {id: short, type: b4, valid: {max: 12}}
              - {id: flag, type: b1}
              - {id: wide, type: b40}
              - {id: next, type: u1}
          - id: 4
            name: Proto
            seq:
              - {id: body, type: {protobuf: Info}}
          - id: 5
            name: Items
            seq:
              - id: items
                type: {tlv: {tag: u1, length: u1, enum: op, values: {1: vlq, 2: strz, _: bytes}}}
        """

    /// Good messages of each kind, then each way a payload type goes wrong, as Pebble-like frames
    /// (length u2be, command u2be) on fff9 in 20-byte values.
    static let payloadFrames: [(command: UInt8, payload: String)] = [
        (1, "02 01 010203 fffffe 003c 3dcccccd 000000000000f07f aa bb"),
        (2, "41 42 00 5761746368000000 40c3e165 3930000000000000"),
        // A varint longer than 10 bytes, one cut off, a short payload, an extra byte.
        (1, "80 80 80 80 80 80 80 80 80 80 01"),
        (1, "02 83"),
        (1, "01 02 010203"),
        (1, "02 03 ffffff 800000 00bc 3f800000 182d4454fb210940 01 02 cc"),
        // A time after 9999, then a strz with no 00 (the fields after it find no bytes).
        (2, "00 0000000000000000 00000000 ffffffffffffff7f"),
        (2, "41 42 43"),
        // Bit fields across bytes, one out of its valid range; then bits cut off by the payload's end.
        (3, "a2 abcd ff ffffffff 80 07"),
        (3, "a2 abc0 ff"),
        // A protobuf by its schema; then a wire type it disagrees with, a packed field cut off and
        // an inner message cut off; then a message cut off.
        (4, "0a026869 1203010203 1a022001 2001"),
        (4, "0d01000000 12020180 1a020a05"),
        (4, "0a0568"),
        // Tag-length-value items; then a varint cut off by its item's length; then a length too long.
        (5, "01 02 9601  02 03 686900  07 01 ff"),
        (5, "01 01 80"),
        (5, "02 05 68"),
    ]

    func testPayloadTypesAgreeWithTheExportedPlugin() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-payloads-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = try payloadCapture(
            Self.payloadFrames.map { ($0.command, Hex.bytes($0.payload) ?? []) }, in: folder)
        let arguments = ["--dissectors", folder.path]

        let all = try events(capture, arguments)
        let messages = all.filter { $0["command_name"] != nil }
        XCTAssertEqual(messages.count, Self.payloadFrames.count)
        let problems = all.filter { ($0["id"] as? String)?.hasPrefix("a5.") == true }.compactMap {
            "\($0["id"] ?? "") \($0["message"] ?? "")"
        }
        XCTAssertEqual(
            problems,
            [
                // Not A5: the a5.* messages name the dissector.
                "a5.field.invalid payload-types: Numbers: n is a varint longer than 10 bytes at payload offset 0",
                "a5.field.invalid payload-types: Numbers: z is a varint cut off at payload offset 1",
                "a5.payload.short payload-types: Numbers: field b needs 3 bytes at payload offset 5, 0 left",
                "a5.payload.extra payload-types: Numbers: 1 byte after the last field (payload offset 24)",
                "a5.field.invalid payload-types: Texts: ms is 9223372036854775807; expected a time from 1970 to 9999",
                "a5.field.invalid payload-types: Texts: name has no 00 terminator at payload offset 0",
                "a5.payload.short payload-types: Texts: field model needs 8 bytes at payload offset 3, 0 left",
                "a5.field.invalid payload-types: Bits: short is 13; expected …12",
                "a5.payload.short payload-types: Bits: field wide needs 1 byte at payload offset 4, 0 left",
                "a5.field.invalid payload-types: Proto: body (Info): field 1 (label) has wire type 5; expected 2, at payload offset 0",
                "a5.field.invalid payload-types: Proto: body (Info): packed field 2 (level): a varint is cut off, at payload offset 8",
                "a5.field.invalid payload-types: Proto: body (Info): field 1 needs 5 bytes, 0 left, at payload offset 13",
                "a5.field.invalid payload-types: Proto: body (Info): field 1 needs 5 bytes, 1 left, at payload offset 2",
                "a5.field.invalid payload-types: Items: items is a varint cut off at payload offset 2",
                "a5.payload.short payload-types: Items: field items needs 5 bytes at payload offset 2, 1 left",
            ])
        let first = messages.first?["fields"] as? [String: Any] ?? [:]
        XCTAssertEqual(first["z"] as? String, "off")
        XCTAssertEqual(first["d"] as? String, "inf")
        XCTAssertEqual((first["f"] as? [String: Any])?["value"] as? Double, 0.1)
        let texts = messages.dropFirst().first?["fields"] as? [String: Any] ?? [:]
        XCTAssertEqual(texts["at"] as? String, "2024-03-01T12:00:00Z")
        XCTAssertEqual(texts["ms"] as? String, "1970-01-01T00:00:12.345Z")
        let bits = messages.dropFirst(8).first?["fields"] as? [String: Any] ?? [:]
        XCTAssertEqual(bits["wide"] as? Int, 1_099_511_627_775)
        let proto = messages.dropFirst(10).first?["fields"] as? [String: Any] ?? [:]
        XCTAssertEqual(
            String(decoding: try JSONSerialization.data(withJSONObject: proto, options: .sortedKeys), as: UTF8.self),
            #"{"body":{"inner":{"mode":"on"},"label":"hi","level":[-1,1,-2],"mode":"on"}}"#)
        let items = messages.dropFirst(13).first?["fields"] as? [String: Any] ?? [:]
        XCTAssertEqual(
            String(decoding: try JSONSerialization.data(withJSONObject: items, options: .sortedKeys), as: UTF8.self),
            #"{"items":[{"tag":1,"value":150},{"tag":2,"value":"hi"},{"tag":7,"value":"ff"}]}"#)

        try requireLuaTshark()
        XCTAssertGreaterThanOrEqual(try compare(capture, ["payload-types"], arguments), 15)
        try compareValues(capture, messages)
    }

    /// The definition in `folder`, and a capture of `frames` on fff9 in 20-byte values.
    private func payloadCapture(_ frames: [(command: UInt8, payload: [UInt8])], in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("payload-types.yaml")
        try Self.payloadDefinition.write(to: file, atomically: true, encoding: .utf8)
        var s = LESession()
        s.connect(handle: 0x40, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        s.att(handle: 0x40, .sent, [0x08, 0x10, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x40, .received, [0x09, 7, 0x10, 0x00, 0x1a, 0x11, 0x00, 0xf9, 0xff])
        var bytes: [UInt8] = []
        for (command, payload) in frames {
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff), 0, command] + payload
        }
        s.stream(handle: 0x40, attHandle: 0x11, .sent, bytes, values: Array(repeating: 20, count: bytes.count / 20 + 1))
        s.disconnect(handle: 0x40)
        let capture = folder.appendingPathComponent("payloads.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        try export(file.path)
        return capture
    }

    /// Random payloads, biased to what the types read (varint continuation bits, protobuf tags,
    /// zeros): btlens and the plugin must raise the same problems in the same records.
    func testRandomPayloadsAgreeWithTheExportedPlugin() throws {
        try requireLuaTshark()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-random-payloads-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix(seed: 7)
        // Two good frames after each random one: btlens stops naming a stream whose frames mostly
        // fail (a5.definition.mismatch), which the plugin does not judge.
        let good = Self.payloadFrames.prefix(2).map { ($0.command, Hex.bytes($0.payload) ?? []) }
        let frames = (0..<300).flatMap { i -> [(command: UInt8, payload: [UInt8])] in
            var payload = rng.bytes(rng.below(48))
            for j in payload.indices where rng.below(3) == 0 {
                payload[j] = [0x00, 0x80, 0x0a, 0x12, 0x01][rng.below(5)]
            }
            return [(UInt8(1 + i % 5), payload)] + good
        }
        let capture = try payloadCapture(frames, in: folder)
        // Every diagnostic shown: the timeline otherwise shows some per second and counts the rest.
        let arguments = ["--dissectors", folder.path, "--diagnostics-per-second", "0"]
        XCTAssertGreaterThan(try compare(capture, ["payload-types"], arguments), 2000)
    }

    /// Dissectors/examples/pebble.yaml and meshtastic.yaml, bound to fff9, on a capture of their
    /// own examples: the plugin names and diagnoses them as btlens does.
    func testTheExampleFilesAgreeWithTheExportedPlugin() throws {
        try requireLuaTshark()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-example-files-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["pebble", "meshtastic"] {
            let source = Self.root.appendingPathComponent("Dissectors/examples/\(name).yaml")
            let text =
                try String(contentsOf: source, encoding: .utf8)
                + "\nbind:\n  characteristics:\n    - {uuid: fff9, role: command}\n"
            let file = folder.appendingPathComponent("\(name).yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let d = try DefinitionLoader.load(file: file.path)
            var s = LESession()
            s.connect(handle: 0x40, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
            s.att(handle: 0x40, .sent, [0x08, 0x10, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(handle: 0x40, .received, [0x09, 7, 0x10, 0x00, 0x1a, 0x11, 0x00, 0xf9, 0xff])
            for e in d.examples {
                s.stream(handle: 0x40, attHandle: 0x11, e.direction, e.bytes, values: [e.bytes.count])
            }
            s.disconnect(handle: 0x40)
            let capture = folder.appendingPathComponent("\(name).btsnoop").path
            try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
            try export(file.path)
            let arguments = ["--dissectors", file.path]
            XCTAssertEqual(try events(capture, arguments).filter { $0["command_name"] != nil }.count, d.examples.count)
            XCTAssertEqual(try compare(capture, [name], arguments), 2 * d.examples.count, name)
        }
    }

    /// Each message's values as tshark shows them beside btlens' JSON: numbers equal to 7
    /// significant digits (tshark prints a binary32 so), text as it is.
    private func compareValues(_ capture: String, _ messages: [[String: Any]]) throws {
        let names = ["n", "a", "b", "h", "f", "d", "name", "model", "count", "long", "short", "flag", "wide", "next"]
        var arguments = ["-X", "lua_script:\(plugin)", "-r", capture, "-2", "-R", "frame", "-T", "fields"]
        arguments += ["-e", "frame.number"] + names.flatMap { ["-e", "payload_types.\($0)"] }
        var shown: [Int: [String]] = [:]
        for line in try tshark(arguments) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if let number = Int(columns[0]) { shown[number] = Array(columns.dropFirst()) }
        }
        var compared = 0
        for m in messages {
            guard let record = m["record"] as? Int, let fields = m["fields"] as? [String: Any] else { continue }
            for (i, name) in names.enumerated() {
                guard var value = fields[name] else { continue }
                if let measure = value as? [String: Any] { value = measure["value"] ?? "" }
                // The first message's value where a record holds two.
                let theirs = shown[record].map { $0[i].split(separator: ",").first.map(String.init) ?? "" } ?? "none"
                if let mine = value as? Double ?? Double("\(value)"), let other = Double(theirs) {
                    let close = mine == other || abs(mine - other) <= 1e-6 * max(1, abs(mine))
                    XCTAssertTrue(close, "record \(record) \(name): \(mine) vs \(theirs)")
                } else {
                    XCTAssertEqual("\(value)", theirs, "record \(record) \(name)")
                }
                compared += 1
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 30)
    }
}
