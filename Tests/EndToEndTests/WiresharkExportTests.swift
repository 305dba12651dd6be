import Foundation
import XCTest

/// `btlens dissectors export --wireshark` checked against btlens itself: tshark, with the exported
/// plugin, must show the frames, names and diagnostics btlens' JSONL shows, in the same records.
/// Skipped without tshark (CI installs it).
final class WiresharkExportTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let protocols = ["aurora-headphones", "lawaken-lamp"]
    /// Captures whose frames Wireshark cannot reach, and why.
    static let unreachable = [
        // btsnoop datalink 1001 (H1) that holds H4 packets: btlens sees the H4 type bytes, Wireshark
        // reads them as H1 and decodes no ACL data.
        "h4_labelled_1001.btsnoop"
    ]

    private var plugin: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("btlens-export-\(getpid()).lua").path
    }

    private func tshark(_ arguments: [String]) throws -> [String] {
        guard
            let path = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: FileManager.default.isExecutableFile)
        else { throw XCTSkip("tshark is not installed") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func export() throws {
        let run = try runCLI([
            "dissectors", "export", "--wireshark", Self.root.appendingPathComponent("Dissectors").path, "-o", plugin,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    private func events(_ capture: String) throws -> [[String: Any]] {
        let run = try runCLI([
            "timeline", capture, "--format", "jsonl", "--dissectors",
            Self.root.appendingPathComponent("Dissectors").path,
        ])
        return run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// What btlens says a capture holds at the layer the plugin covers: (record, name or diagnostic id),
    /// with the Decode As arguments Wireshark needs for streams whose discovery is not in the capture.
    private func expected(_ capture: String) throws -> (items: [String], decodeAs: [String]) {
        let all = try events(capture)
        var streams: [String: (dissector: String, handle: Int?, discovered: Bool)] = [:]
        func stream(_ e: [String: Any]) -> String {
            "\(e["connection"] ?? "")/\(e["att_handle"] ?? "")/\(e["ea_session"] ?? "")"
        }
        var items: [String] = []
        for e in all {
            guard let type = e["type"] as? String, type == "a5" || type == "message",
                let d = e["dissector"] as? String, Self.protocols.contains(d),
                type == "a5" || ["fff1", "fff2"].contains(e["uuid"] as? String)
            else { continue }
            streams[stream(e)] = (d, e["att_handle"] as? Int, e["uuid"] != nil)
            items.append("\(e["record"] ?? 0) \(e["command_name"] ?? "?")")
        }
        for e in all {
            guard e["type"] as? String == "diagnostic", let id = e["id"] as? String, id.hasPrefix("a5."),
                streams[stream(e)] != nil || Self.protocols.contains(e["dissector"] as? String ?? "")
            else { continue }
            items.append("\(e["detected_record"] ?? e["record"] ?? 0) \(id)")
        }
        let decodeAs = streams.values.filter { !$0.discovered && $0.handle != nil }.flatMap {
            ["-d", "btatt.handle==\($0.handle ?? 0),\($0.dissector.replacingOccurrences(of: "-", with: "_"))"]
        }
        return (items.sorted(), decodeAs)
    }

    /// What tshark shows with the plugin: (packet, command name or diagnostic id).
    private func shown(_ capture: String, decodeAs: [String]) throws -> [String] {
        var arguments = [
            "-X", "lua_script:\(plugin)", "-r", capture, "-2", "-R", "frame", "-T", "fields", "-e", "frame.number",
        ]
        arguments += decodeAs
        for p in Self.protocols { arguments += ["-e", p.replacingOccurrences(of: "-", with: "_") + ".command_name"] }
        arguments += ["-e", "_ws.expert.message"]
        var items: [String] = []
        for line in try tshark(arguments) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let number = columns.first, columns.count == Self.protocols.count + 2 else { continue }
            for names in columns.dropFirst().dropLast() {
                for name in names.split(separator: ",") { items.append("\(number) \(name)") }
            }
            for message in columns[columns.count - 1].split(separator: ",") where message.hasPrefix("a5.") {
                items.append("\(number) \(message.prefix { $0 != ":" })")
            }
        }
        return items.sorted()
    }

    func testTsharkShowsWhatBtlensShowsOnEverySampleCapture() throws {
        _ = try tshark(["-v"])
        try export()
        let folder = Self.root.appendingPathComponent("Captures")
        var compared = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".btsnoop") && !Self.unreachable.contains(name) {
            let capture = folder.appendingPathComponent(name).path
            let (want, decodeAs) = try expected(capture)
            XCTAssertEqual(try shown(capture, decodeAs: decodeAs), want, name)
            compared += want.count
        }
        XCTAssertGreaterThan(compared, 40)
    }

    /// A display filter on the exported fields selects the records btlens names.
    func testDisplayFiltersSelectTheRecordsBtlensNames() throws {
        _ = try tshark(["-v"])
        try export()
        let capture = Self.root.appendingPathComponent("Captures/ble_a5_session.btsnoop").path
        let records = try events(capture).filter { $0["type"] as? String == "a5" && $0["command"] as? Int == 0x20 }
            .map { "\($0["record"] ?? 0)" }
        let command = try tshark([
            "-X", "lua_script:\(plugin)", "-r", capture, "-Y", "aurora_headphones.command == 0x20", "-T", "fields",
            "-e", "frame.number",
        ])
        XCTAssertEqual(command, records)
        XCTAssertEqual(records, ["29"])
        let preset = try tshark([
            "-X", "lua_script:\(plugin)", "-r", capture, "-Y", "aurora_headphones.preset == 1", "-T", "fields", "-e",
            "frame.number",
        ])
        XCTAssertEqual(preset, ["29"])
    }
}
