import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// What a definition says of its messages' behaviour, in btlens and in the exported plugin:
/// sequences counted per header field or not at all.
extension WiresharkExportTests {
    static let behaviourDefinitions = [
        // Even G2's framing: the phone counts per service here, the glasses' numbers count nothing.
        "per-service.yaml": """
        protocol: per-service
        bind:
          characteristics:
            - {uuid: fff1, role: command}
            - {uuid: fff2, role: event}
        framing:
          magic: 0xaa
          header: [sequence, length, {command: u2be}]
          checksum: sum8
          sequence-per: {phone: command, accessory: none}
        messages:
          - {id: 0x8000, name: Status, seq: [{id: body, type: protobuf}]}
          - {id: 0x0e20, name: Settings, seq: [{id: body, type: protobuf}]}
        """,
        // Replies carry their request's id in a group and answer out of order.
        "tagged.yaml": """
        protocol: tagged
        bind:
          characteristics:
            - {uuid: fff3, role: command}
            - {uuid: fff4, role: event}
        framing:
          magic: 0xaa
          header: [length, command]
          checksum: sum8
        types:
          head: {seq: [{id: kind, type: u1}, {id: tag, type: u2le}]}
        messages:
          - {id: 0x01, name: Get, from: phone, seq: [{id: head, type: head}, {id: body, type: protobuf}]}
          - {id: 0x01, name: Got, from: accessory, seq: [{id: head, type: head}, {id: body, type: protobuf}]}
        pairing: {match: {field: head.tag}}
        """,
    ]

    /// A connection whose discovery finds `uuids` (16-bit, or 128-bit with dashes), in order, with
    /// value handles 0x11, 0x13, …
    func discovered(_ uuids: [String], handle h: UInt16 = 0x0040) -> LESession {
        var s = LESession()
        s.connect(handle: h, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        for (i, uuid) in uuids.enumerated() {
            let declaration = UInt8(0x10 + 2 * i)
            // On the wire, least significant byte first.
            let wire = Array((Hex.bytes(uuid.replacingOccurrences(of: "-", with: "")) ?? []).reversed())
            s.att(handle: h, .sent, [0x08, declaration, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(
                handle: h, .received,
                [0x09, UInt8(5 + wire.count), declaration, 0x00, 0x1a, declaration + 1, 0x00] + wire)
        }
        return s
    }

    /// Writes the definitions and the capture `build` makes from their formats into a folder;
    /// returns the folder and the capture's path.
    func definitionsFolder(
        _ definitions: [String: String], _ build: ([String: DefinitionDissector]) -> [UInt8]
    ) throws -> (folder: URL, capture: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-definitions-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var loaded: [String: DefinitionDissector] = [:]
        for (file, text) in definitions {
            try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
            let d = try DefinitionLoader.load(text: text, file: file)
            loaded[d.name] = d
        }
        let capture = folder.appendingPathComponent("capture.btsnoop").path
        try Data(build(loaded)).write(to: URL(fileURLWithPath: capture))
        return (folder, capture)
    }

    /// `definitionsFolder` for a capture made from the definitions' frame formats, which also
    /// returns the records whose checksums it broke.
    func framesFolder(
        _ definitions: [String: String], _ build: ([String: FrameFormat]) -> ([UInt8], [Int])
    ) throws -> (folder: URL, capture: String, bad: [Int]) {
        var bad: [Int] = []
        let (folder, capture) = try definitionsFolder(definitions) { loaded in
            let made = build(loaded.compactMapValues { d in if case .frames(let f) = d.framing { f } else { nil } })
            bad = made.1
            return made.0
        }
        return (folder, capture, bad)
    }

    func testSequencesPerServiceAgreeWithTheExportedPlugin() throws {
        let (folder, capture) = try definitionsFolder(Self.behaviourDefinitions) { loaded in
            guard case .frames(let f)? = loaded["per-service"]?.framing else { return [] }
            var s = discovered(["fff1", "fff2"])
            // Services 0x8000 and 0x0e20 counting on their own: one gap (0x8000's 3), one repeat (0x0e20's 41).
            let sent: [(UInt16, UInt8)] = [
                (0x8000, 1), (0x0e20, 40), (0x8000, 2), (0x0e20, 41), (0x8000, 4), (0x0e20, 41),
            ]
            for (command, sequence) in sent {
                s.stream(
                    handle: 0x40, attHandle: 0x11, .sent,
                    f.encode(command: command, sequence: sequence, payload: [0x08, 0x01]), values: [64])
                s.stream(
                    handle: 0x40, attHandle: 0x13, .received,
                    f.encode(command: command, sequence: sequence &* 37, payload: [0x08, 0x02]), values: [64])
            }
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]
        let diagnostics = try events(capture, arguments).filter { ($0["id"] as? String)?.hasPrefix("a5.") == true }
        XCTAssertEqual(
            diagnostics.compactMap { $0["message"] as? String },
            [
                // Not A5: the a5.* messages name the dissector.
                "per-service: expected sequence 3 for command 0x8000, got 4: 1 frame missing",
                "per-service: sequence 41 again (command 0xe20)",
            ])
        try requireLuaTshark()
        try export(folder.appendingPathComponent("per-service.yaml").path)
        XCTAssertEqual(try compare(capture, ["per-service"], arguments), 26)
    }

    /// "response request" for every paired message btlens shows, and what tshark with the
    /// plugin shows, in order.
    func pairs(
        _ capture: String, _ protocolName: String, _ arguments: [String], decodeAs: [String] = []
    ) throws -> (btlens: [String], tshark: [String]) {
        let mine = try events(capture, arguments).compactMap { e -> String? in
            guard let to = e["response_to"] as? Int, let record = e["record"] as? Int else { return nil }
            return "\(record) \(to)"
        }
        let name = protocolName.replacingOccurrences(of: "-", with: "_")
        let lines = try tshark(
            ["-X", "lua_script:\(plugin)", "-r", capture, "-2", "-R", "frame", "-T", "fields"] + decodeAs + [
                "-e", "frame.number", "-e", "\(name).response_to",
            ])
        let theirs = lines.compactMap { line -> String? in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == 2, !columns[1].isEmpty else { return nil }
            return "\(columns[0]) \(columns[1])"
        }
        return (mine, theirs)
    }

    /// Even G2's replies carry their request's message id in protobuf field 2.
    func testEvenG2RepliesPairByTheirMessageIdInBothTools() throws {
        try requireLuaTshark()
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("evenG2_test.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let definition = Self.root.appendingPathComponent("Dissectors/examples/even-g2.yaml").path
        try export(definition)
        let decodeAs = ["-d", "btatt.handle==0x0842,even_g2", "-d", "btatt.handle==0x0844,even_g2"]
        let (mine, theirs) = try pairs(
            capture, "even-g2",
            ["--dissectors", definition, "--decode-as", "att:0x0842=even-g2", "--decode-as", "att:0x0844=even-g2"],
            decodeAs: decodeAs)
        XCTAssertEqual(mine, ["75 74", "83 81", "86 84", "225 222"])
        XCTAssertEqual(theirs, mine)
    }

    /// Nordic Secure DFU (Dissectors/examples/nordic-dfu.yaml): responses echo their request's
    /// opcode, and answer out of order here; one answers nothing, two requests get no answer. The
    /// plugin pairs event-byte messages as btlens does, and reads them so through Decode As.
    func testNordicDFUPairsByTheEchoedOpcodeInBothTools() throws {
        let definition = Self.root.appendingPathComponent("Dissectors/examples/nordic-dfu.yaml").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-dfu-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // nRF5 SDK "DFU protocol": 06 select, 02 set PRN, 01 create, 03 calculate checksum,
        // 04 execute; 60 <opcode> <result> responses, result 01 success.
        let steps: [(Direction, String)] = [
            (.sent, "06 01"), (.received, "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00"),
            (.sent, "02 00 00"), (.sent, "06 02"),
            (.received, "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00"), (.received, "60 02 01"),
            (.sent, "01 02 00 10 00 00"), (.received, "60 01 01"),
            (.received, "60 03 01 14 00 00 00 78 56 34 12"),
            (.sent, "03"), (.received, "60 03 01 00 10 00 00 78 56 34 12"),
            (.sent, "04"),
            // An opcode the definition does not list (0x0a, hardware version): a number, no name.
            (.sent, "0a 00"),
        ]
        func capture(_ name: String, discovery: Bool) throws -> String {
            var s =
                discovery
                ? discovered(["8ec90001-f315-4f60-9fb8-838830daea50", "8ec90002-f315-4f60-9fb8-838830daea50"])
                : discovered([])
            for (direction, hex) in steps {
                s.att(handle: 0x40, direction, [direction == .sent ? 0x52 : 0x1b, 0x11, 0x00] + (Hex.bytes(hex) ?? []))
            }
            s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 0x12, 0x8a, 0x0a, 0x08])
            s.disconnect(handle: 0x40)
            let path = folder.appendingPathComponent(name).path
            try Data(s.bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let bound = try capture("dfu.btsnoop", discovery: true)
        let arguments = ["--dissectors", definition]
        let all = try events(bound, arguments)
        let said = all.compactMap { e -> String? in
            if let to = e["response_to"] as? Int { return "\(e["record"] ?? 0) \(e["command_name"] ?? "") <- \(to)" }
            return (e["id"] as? String).flatMap { $0.hasPrefix("a5.") ? "\(e["record"] ?? 0) \($0)" : nil }
        }
        let first = all.first { $0["command_name"] as? String == "Select" }?["record"] as? Int ?? 0
        // Records from the first Select on, one a step: the select answered before the set PRN.
        XCTAssertEqual(
            said,
            [
                "\(first + 1) Response <- \(first)", "\(first + 4) Response <- \(first + 3)",
                "\(first + 5) Response <- \(first + 2)", "\(first + 7) Response <- \(first + 6)",
                "\(first + 8) a5.response.unsolicited", "\(first + 10) Response <- \(first + 9)",
                "\(first + 16) a5.request.unanswered", "\(first + 16) a5.request.unanswered",
            ])
        try requireLuaTshark()
        try export(definition)
        let (mine, theirs) = try pairs(bound, "nordic-dfu", arguments)
        XCTAssertEqual(theirs, mine)
        XCTAssertEqual(try compare(bound, ["nordic-dfu"], arguments), 29)
        // No discovery: Decode As reads the control point as event-byte messages, not frames.
        let undiscovered = try capture("dfu-decode-as.btsnoop", discovery: false)
        let decodeAs = arguments + ["--decode-as", "att:0x0011=nordic-dfu"]
        let (mine2, theirs2) = try pairs(
            undiscovered, "nordic-dfu", decodeAs, decodeAs: ["-d", "btatt.handle==0x0011,nordic_dfu"])
        XCTAssertEqual(mine2.count, 5)
        XCTAssertEqual(theirs2, mine2)
        XCTAssertEqual(try compare(undiscovered, ["nordic-dfu"], decodeAs), 28)
    }

    /// Decode As on a `framing: value` definition: each value is a message of its own, not bytes
    /// of A5 frames (which these would start: a resync, a truncated frame).
    func testDecodeAsReadsAValueFramingAsValues() throws {
        let definitions = [
            "level.yaml": """
            protocol: level
            framing: value
            bind:
              characteristics:
                - {uuid: fff9, message: Level}
            messages:
              - {name: Level, seq: [{id: level, type: u1}]}
            """
        ]
        let (folder, capture) = try definitionsFolder(definitions) { _ in
            var s = discovered([])
            s.att(handle: 0x40, .received, [0x1b, 0x11, 0x00, 0xa5, 0x01, 0x02, 0x03, 0x09])
            // A Read Request carries no value: Wireshark hands it to the handle's Decode As too.
            s.att(handle: 0x40, .sent, [0x0a, 0x11, 0x00])
            s.att(handle: 0x40, .received, [0x1b, 0x11, 0x00, 0xa5, 0x01])
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path, "--decode-as", "att:0x0011=level"]
        let messages = try events(capture, arguments).filter { $0["dissector"] as? String == "level" }
        XCTAssertEqual(messages.compactMap { $0["type"] as? String }, ["message", "message"])
        try requireLuaTshark()
        try export(folder.appendingPathComponent("level.yaml").path)
        XCTAssertEqual(try compare(capture, ["level"], arguments), 0)
        let payloads = try tshark(
            ["-X", "lua_script:\(plugin)", "-r", capture, "-d", "btatt.handle==0x0011,level", "-T", "fields"]
                + ["-e", "level.payload", "-Y", "level"])
        XCTAssertEqual(payloads, ["a501020309", "a501"])
        // By message name: btlens' att:0x0011=level/Level is Wireshark's level_level.
        let named = try events(capture, ["--dissectors", folder.path, "--decode-as", "att:0x0011=level/Level"])
        XCTAssertEqual(
            named.compactMap { ($0["fields"] as? [String: Any])?["level"] as? Int }, [0xa5, 0xa5])
        let levels = try tshark(
            ["-X", "lua_script:\(plugin)", "-r", capture, "-d", "btatt.handle==0x0011,level_level", "-T", "fields"]
                + ["-e", "level.level", "-Y", "level"])
        XCTAssertEqual(levels, ["165", "165"])
    }

    /// `match: {field: head.tag}`: three requests answered in reverse order, and a reply with a
    /// tag no request has; each reply pairs with its tag's request in both tools.
    func testATokenInAGroupPairsInBothTools() throws {
        let (folder, capture) = try definitionsFolder(Self.behaviourDefinitions) { loaded in
            guard case .frames(let f)? = loaded["tagged"]?.framing else { return [] }
            var s = discovered(["fff1", "fff2", "fff3", "fff4"])
            func send(_ d: Direction, _ tag: UInt8) {
                let payload: [UInt8] = [0x01, tag, 0x00, 0x08, tag]
                s.stream(
                    handle: 0x40, attHandle: d == .sent ? 0x15 : 0x17, d, f.encode(command: 1, payload: payload),
                    values: [64])
            }
            for tag: UInt8 in [7, 8, 9] { send(.sent, tag) }
            for tag: UInt8 in [9, 7, 5, 8] { send(.received, tag) }
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]
        let all = try events(capture, arguments)
        let first = all.first { $0["command_name"] as? String == "Get" }?["record"] as? Int ?? 0
        let (mine, _) = try pairs(capture, "tagged", arguments)
        XCTAssertEqual(mine, ["\(first + 3) \(first + 2)", "\(first + 4) \(first)", "\(first + 6) \(first + 1)"])
        XCTAssertEqual(
            all.filter { $0["id"] as? String == "a5.response.unsolicited" }.compactMap { $0["record"] as? Int },
            [first + 5])
        // `stats` reads the tokens too (no payload is left out for it).
        let stats = try runCLI(["stats", capture, "--format", "json"] + arguments).stdout
        let commands = (try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])?["commands"]
        let get = (commands as? [[String: Any]])?.first { $0["name"] as? String == "Get" }
        XCTAssertEqual(get?["answered"] as? Int, 3)
        try requireLuaTshark()
        try export(folder.appendingPathComponent("tagged.yaml").path)
        XCTAssertEqual(try pairs(capture, "tagged", arguments).tshark, mine)
        XCTAssertEqual(try compare(capture, ["tagged"], arguments), 15)
    }

    /// Encrypted payloads, by a flag bit and by message: shown as bytes, never decoded (no field,
    /// no a5.payload.extra), `[encrypted]` in text, `encrypted` in JSON and the plugin.
    func testEncryptedPayloadsAreShownAsBytesInBothTools() throws {
        let definitions = [
            "sealed.yaml": """
            protocol: sealed
            bind:
              characteristics:
                - {uuid: fff1, role: command}
            framing:
              magic: 0xaa
              header: [flags, length, command]
              checksum: sum8
              encrypted: {flag: 0x01}
            messages:
              - {id: 1, name: Status, seq: [{id: level, type: u1}]}
              - {id: 2, name: Key, encrypted: true}
            """
        ]
        let (folder, capture) = try definitionsFolder(definitions) { loaded in
            guard case .frames(let f)? = loaded["sealed"]?.framing else { return [] }
            var s = discovered(["fff1"])
            for (command, flags, payload) in [(1, 0, [0x07]), (1, 1, [0x9c, 0x41, 0xe0]), (2, 0, [0x01, 0x02])] {
                let frame = f.encode(command: UInt16(command), flags: UInt8(flags), payload: payload.map(UInt8.init))
                s.stream(handle: 0x40, attHandle: 0x11, .sent, frame, values: [64])
            }
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]
        let text = try runCLI(["timeline", capture] + arguments).stdout.split(separator: "\n").filter {
            ($0.contains("(fff1) ") && !$0.contains(" value ")) || $0.contains("a5.")
        }
        XCTAssertEqual(
            text.map { String($0.drop { $0 != "(" }) },
            [
                "(fff1) Status (0x01) level=7", "(fff1) Status (0x01) flags 0x01 len 3: 9c 41 e0 [encrypted]",
                "(fff1) Key (0x02) len 2: 01 02 [encrypted]",
            ])
        let json = try events(capture, arguments).filter { $0["dissector"] as? String == "sealed" }
        XCTAssertEqual(json.map { $0["encrypted"] as? Bool ?? false }, [false, true, true])
        try requireLuaTshark()
        try export(folder.appendingPathComponent("sealed.yaml").path)
        XCTAssertEqual(try compare(capture, ["sealed"], arguments), 6)
        let secret = try tshark(
            ["-X", "lua_script:\(plugin)", "-r", capture, "-2", "-R", "frame", "-T", "fields"]
                + ["-e", "sealed.encrypted_payload", "-e", "sealed.level", "-Y", "sealed"])
        XCTAssertEqual(secret, ["\t7", "9c41e0\t", "0102\t"])
    }
}
