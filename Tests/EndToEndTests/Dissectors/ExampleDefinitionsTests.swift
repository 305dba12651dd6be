import BTLensTestSupport
import Foundation
import XCTest

/// Every definition in Dissectors/examples (whoever adds one) loads, `btlens dissectors check`
/// replays its examples with exit status 0, and its Wireshark export parses as Lua (`luac -p`,
/// where luac is installed). The folder is read, not a list of names.
final class ExampleDefinitionsTests: XCTestCase {
    static let examples = packageRoot.appendingPathComponent("Dissectors/examples")

    func testEveryExampleChecksAndExportsParsableLua() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 6, "\(files)")
        let luac = Self.luac()
        for name in files {
            let path = Self.examples.appendingPathComponent(name).path
            let check = try runCLI(["dissectors", "check", path])
            XCTAssertEqual(check.status, 0, "\(name): \(check.stdout)\(check.stderr)")
            XCTAssertTrue(check.stdout.contains("examples hold"), "\(name): \(check.stdout)")
            XCTAssertFalse(check.stdout.contains(" 0 of "), "\(name) has no example: \(check.stdout)")
            let plugin = FileManager.default.temporaryDirectory.appendingPathComponent(
                "btlens-example-\(getpid())-\(name).lua")
            defer { try? FileManager.default.removeItem(at: plugin) }
            let export = try runCLI(["dissectors", "export", "--wireshark", path, "-o", plugin.path])
            XCTAssertEqual(export.status, 0, "\(name): \(export.stderr)")
            guard let luac else { continue }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: luac)
            p.arguments = ["-p", plugin.path]
            let err = Pipe()
            p.standardError = err
            try p.run()
            let complaint = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "\(name): \(complaint)")
        }
    }

    /// luac on the PATH, if any: the Lua part is skipped without it.
    static func luac() -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return ["luac5.4", "luac", "luac5.3"].lazy.flatMap { name in folders.lazy.map { "\($0)/\(name)" } }
            .first(where: FileManager.default.isExecutableFile)
    }
}
