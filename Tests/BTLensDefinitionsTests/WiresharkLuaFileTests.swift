import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensDefinitions

/// The plugin's Lua as Lua reads it, where tshark is missing too: `luac -p` on the files in
/// `Sources/BTLensDefinitions/Lua` and on the plugin exported for every definition in `Dissectors/`.
/// Skipped without luac (CI installs it); tshark runs the plugins in EndToEndTests/WiresharkExportTests.
final class WiresharkLuaFileTests: XCTestCase {
    private static let root = packageRoot
    private static let luaFolder = root.appendingPathComponent("Sources/BTLensDefinitions/Lua")

    /// The Lua files, sorted.
    private static func luaFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: luaFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "lua" }.sorted { $0.path < $1.path }
    }

    /// `luac -p FILE`'s complaint, or nil when the file parses; skips the test without luac.
    private func luacComplaint(_ file: URL) throws -> String? {
        let names = ["luac", "luac5.4", "luac5.3", "luac5.2", "luac5.1"]
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        let found = names.lazy.flatMap { name in folders.lazy.map { "\($0)/\(name)" } }
            .first(where: FileManager.default.isExecutableFile)
        guard let luac = found else { throw XCTSkip("luac is not installed") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: luac)
        p.arguments = ["-p", file.path]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return p.terminationStatus == 0 ? nil : text
    }

    func testTheLuaFilesParse() throws {
        let files = try Self.luaFiles()
        XCTAssertEqual(files.map(\.lastPathComponent), ["iap2.lua", "runtime.lua"])
        for file in files { XCTAssertNil(try luacComplaint(file), file.path) }
    }

    /// Each shipped definition alone, and all of them in one plugin (as `export --wireshark` with no
    /// argument writes it).
    func testThePluginOfEveryDefinitionParses() throws {
        let shipped = Self.root.appendingPathComponent("Dissectors")
        let files = try ["", "/examples"].flatMap { try DefinitionLoader.files(in: shipped.path + $0) }
        let definitions = try files.map { try DefinitionLoader.load(file: $0) }
        XCTAssertGreaterThanOrEqual(definitions.count, 4)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-luac-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, set) in definitions.map({ ($0.name, [$0]) }) + [("all", definitions)] {
            let plugin = folder.appendingPathComponent(name + ".lua")
            try Data(WiresharkExport.lua(set, version: "test").utf8).write(to: plugin)
            XCTAssertNil(try luacComplaint(plugin), name)
        }
    }

    /// The runtime raises btlens' diagnostics by their ids: each must be declared, and registered as
    /// an expert info by the export (which takes its summary and severity from the declaration).
    func testTheRuntimeNamesOnlyDeclaredDiagnostics() throws {
        let runtime = try String(contentsOf: Self.luaFolder.appendingPathComponent("runtime.lua"), encoding: .utf8)
        let said = Set(runtime.matches(of: #/"(a5\.[a-z_.]+)"/#).map { String($0.1) })
        XCTAssertTrue(said.contains("a5.checksum.bad"))
        XCTAssertEqual(said.subtracting(Analyzer.diagnosticKinds.map(\.id)), [])
        let d = try DefinitionParser.parse(text: "protocol: tt\nmessages:\n  - {id: 1, name: A}\n", file: "t.yaml")
        let plugin = WiresharkExport.lua([d], version: "1")
        for id in said.sorted() { XCTAssertTrue(plugin.contains("    [\"\(id)\"] = { "), "no expert info for \(id)") }
    }

    /// iap2.lua's expert infos, message names, session and file transfer types and guess bound come
    /// from the Swift declarations.
    func testTheIAP2TablesAreBtlensDeclarations() throws {
        let iap2 = try String(contentsOf: Self.luaFolder.appendingPathComponent("iap2.lua"), encoding: .utf8)
        let used = Set(iap2.matches(of: #/\bex\.([a-z_]+)/#).map { String($0.1) })
        XCTAssertEqual(used, Set(WiresharkExport.iap2Experts.map(\.name) + ["lua"]))
        let lua = WiresharkExport.iap2Lua
        XCTAssertTrue(lua.contains(#"  [0x1d01] = "IdentificationInformation","#))
        XCTAssertTrue(lua.contains(#"  gap = { "iap2.sequence.gap", "A packet's PSN skips ahead"#))
        XCTAssertTrue(lua.contains("local GUESS_LIMIT = \(Limits().guessBytes)\n"))
        XCTAssertTrue(lua.contains(#"local session_types = { [0] = "control", [1] = "file transfer", [2] = "#))
        XCTAssertTrue(lua.contains(#"local ft_types = { [0] = "Data", [1] = "Start", "#))
        XCTAssertFalse(iap2.contains("IdentificationInformation\""))
    }
}
