import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// `timeline` on a terminal fits each line to its width, cutting the summary with `…`; piped or with
/// `--verbose` the lines stay whole. The terminal is a pseudo-terminal from script(1), where installed.
final class TerminalWidthTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-width-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, session) in [
            ("iap2.btsnoop", SampleCaptures.bredrIAP2()), ("faults.btsnoop", SampleCaptures.faults()),
        ] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path(name), contents: Data(session.bytes)))
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func lines(_ s: String) -> [String] {
        s.replacingOccurrences(of: "\r", with: "").split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
    }

    func testPipedOutputStaysWholeWhateverCOLUMNSSays() throws {
        for arguments in [["timeline", path("iap2.btsnoop")], ["timeline", "--summary", path("faults.btsnoop")]] {
            let plain = try runCLI(arguments)
            let narrow = try runCLI(arguments, environment: ["COLUMNS": "40"])
            XCTAssertEqual(narrow.status, 0, narrow.stderr)
            XCTAssertEqual(narrow.stdout, plain.stdout)
            XCTAssertGreaterThan(lines(narrow.stdout).map(\.count).max() ?? 0, 150, "whole lines")
            XCTAssertFalse(narrow.stdout.contains("…\n"))
        }
    }

    /// `COMMAND` run on a pseudo-terminal: what it printed there.
    func onTerminal(_ command: String) throws -> String {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("script(1) is not installed") }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "btlens")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", command.replacingOccurrences(of: "BTLENS", with: "'\(binary.path)'"), "/dev/null"]
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self)
    }

    func testOnATerminalLinesFitItsWidth() throws {
        let iap2 = path("iap2.btsnoop")
        let faults = path("faults.btsnoop")
        // $COLUMNS when set.
        let piped = lines(try runCLI(["timeline", iap2]).stdout)
        let shown = lines(try onTerminal("COLUMNS=60 BTLENS timeline --color never '\(iap2)'"))
        XCTAssertEqual(shown, piped.map { TerminalText.fit($0, columns: 60) })
        XCTAssertTrue(
            shown.contains("#10          0.011250 > 0x000c IAP2  detect: FF 55 02 00 EE…"),
            shown.joined(separator: "\n"))
        XCTAssertEqual(
            shown.filter { $0.hasSuffix("…") }.count, piped.filter { $0.count > 60 }.count,
            "the lines longer than 60 columns")
        XCTAssertGreaterThan(piped.filter { $0.count > 60 }.count, 20)
        // The terminal's own width (TIOCGWINSZ), the summary included; cut at the end, its columns stay.
        let summary = lines(try runCLI(["timeline", "--summary", faults]).stdout)
        let narrow = lines(
            try onTerminal("stty cols 50; unset COLUMNS; BTLENS timeline --summary --color never '\(faults)'"))
        XCTAssertEqual(narrow, summary.map { TerminalText.fit($0, columns: 50) })
        XCTAssertTrue(
            narrow.contains("  warning  l2cap.unexpected_continuation 1  first…"), narrow.joined(separator: "\n"))
        // --verbose: whole.
        let verbose = lines(try runCLI(["timeline", "--verbose", iap2]).stdout)
        XCTAssertEqual(lines(try onTerminal("COLUMNS=60 BTLENS timeline --verbose --color never '\(iap2)'")), verbose)
    }
}
