import BTLensTestSupport
import Foundation
import XCTest

/// `scripts/install` (README, Install; docs/install.md) run as a user runs it, with the build beside these tests in
/// place of the release build it would make, into a prefix of its own.
final class InstallScriptTests: XCTestCase {
    let root = packageRoot
    let builds = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    func install(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/install").path] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    func testItInstallsTheBinaryAndItsCompletionsUnderThePrefix() throws {
        guard FileManager.default.isExecutableFile(atPath: builds.appendingPathComponent("btlens").path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-install-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: prefix) }
        let (status, output) = try install(["--prefix", prefix.path, "--bin", builds.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertEqual(
            output,
            """
            installed 0.1.0 as \(prefix.path)/bin/btlens, with bash, zsh and fish completions
            \(prefix.path)/bin is not on your PATH: add  export PATH="\(prefix.path)/bin:$PATH"  to your shell's profile

            """)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix.path + "/bin/btlens"))
        let completions = [
            ("share/bash-completion/completions/btlens", "#!/bin/bash"),
            ("share/zsh/site-functions/_btlens", "#compdef btlens"),
            ("share/fish/vendor_completions.d/btlens.fish", "function __btlens"),
        ]
        for (path, start) in completions {
            let text = try String(contentsOfFile: prefix.path + "/" + path, encoding: .utf8)
            XCTAssertTrue(text.hasPrefix(start), "\(path) begins \(text.prefix(40))")
            XCTAssertTrue(text.contains("timeline"), "\(path) does not complete the subcommands")
        }
    }

    func testABuildFolderWithoutBtlensIsRefused() throws {
        let (status, output) = try install(["--prefix", NSTemporaryDirectory(), "--bin", "/nonexistent"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(output, "scripts/install: no btlens in /nonexistent\n")
    }
}
