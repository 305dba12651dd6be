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
        """
    ]

    /// A connection whose discovery finds `uuids`, in order, with value handles 0x11, 0x13, …
    func discovered(_ uuids: [UInt16], handle h: UInt16 = 0x0040) -> LESession {
        var s = LESession()
        s.connect(handle: h, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        for (i, uuid) in uuids.enumerated() {
            let declaration = UInt8(0x10 + 2 * i)
            s.att(handle: h, .sent, [0x08, declaration, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(
                handle: h, .received,
                [0x09, 7, declaration, 0x00, 0x1a, declaration + 1, 0x00, UInt8(uuid & 0xff), UInt8(uuid >> 8)])
        }
        return s
    }

    /// Writes the definitions and the capture `build` makes from their formats into a folder;
    /// returns the folder and the capture's path.
    func behaviourFolder(
        _ definitions: [String: String], _ build: ([String: DefinitionDissector]) -> [UInt8]
    ) throws -> (folder: URL, capture: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-behaviour-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var loaded: [String: DefinitionDissector] = [:]
        for (file, text) in definitions {
            try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
            let d = try DefinitionLoader.load(text: text, file: file)
            loaded[d.name] = d
        }
        let capture = folder.appendingPathComponent("behaviour.btsnoop").path
        try Data(build(loaded)).write(to: URL(fileURLWithPath: capture))
        return (folder, capture)
    }

    func testSequencesPerServiceAgreeWithTheExportedPlugin() throws {
        let (folder, capture) = try behaviourFolder(Self.behaviourDefinitions) { loaded in
            guard case .frames(let f)? = loaded["per-service"]?.framing else { return [] }
            var s = discovered([0xfff1, 0xfff2])
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
                "expected sequence 3 for command 0x8000, got 4: 1 frame missing",
                "sequence 41 again (command 0xe20)",
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
}
