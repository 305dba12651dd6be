import BTLensTestSupport
import Foundation
import XCTest

/// Every bundled capture's outputs, compared byte for byte with the ones stored in Tests/Snapshots.
/// A change that moves an output byte fails here; `scripts/snapshots` re-records them all and shows
/// the diff, so an intended change is reviewed as a diff of outputs in the same commit.
final class SnapshotTests: XCTestCase {
    static let root = packageRoot
    static let folder = root.appendingPathComponent("Tests/Snapshots")
    /// A home with no dissector folder in it, so the user's own definitions never reach a snapshot.
    static let home = "/nonexistent-btlens-snapshot-home"

    /// Each stored output: its file name, the subcommand, and the options after the capture's path.
    static let outputs: [(name: String, command: String, options: [String])] = [
        ("timeline.txt", "timeline", []),
        ("verbose.txt", "timeline", ["--verbose"]),
        ("timeline.jsonl", "timeline", ["--format", "jsonl"]),
        ("stats.json", "stats", ["--format", "json"]),
        ("report.json", "report", ["--format", "json", "-o", "-"]),
    ]

    static var recording: Bool { ProcessInfo.processInfo.environment["BTLENS_RECORD_SNAPSHOTS"] == "1" }

    func testEveryBundledCaptureMatchesItsSnapshots() throws {
        let captures = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Captures").path
        )
        .filter { $0.hasSuffix(".btsnoop") }.sorted()
        XCTAssertGreaterThan(captures.count, 10)
        var stale: [String] = []
        for capture in captures {
            let stem = String(capture.dropLast(".btsnoop".count))
            for output in Self.outputs {
                let name = "\(stem)/\(output.name)"
                let actual = try Self.render([output.command, "Captures/\(capture)"] + output.options)
                if try !Self.matches(name, actual) { stale.append(name) }
            }
        }
        // The app-log capture with its two logs merged in: the lanes, the alignment and the diagnostics.
        let appLog = ["--app-log", "Captures/ble_app_log.app.log", "--app-log", "Captures/ble_app_log.logcat.txt"]
        for (name, arguments) in [
            ("ble_app_log/with-logs.txt", ["timeline", "Captures/ble_app_log.btsnoop"] + appLog),
            (
                "ble_app_log/with-logs.jsonl",
                ["timeline", "Captures/ble_app_log.btsnoop", "--format", "jsonl"] + appLog
            ),
        ] where try !Self.matches(name, try Self.render(arguments)) {
            stale.append(name)
        }
        // Over-the-air captures, with the key a sample needs.
        for sample in SnifferSamples.all {
            let stem = sample.file.split(separator: ".")[0]
            for output in Self.outputs {
                let name = "\(stem)/\(output.name)"
                let actual = try Self.render(
                    [output.command, "Captures/\(sample.file)"] + output.options + sample.options)
                if try !Self.matches(name, actual) { stale.append(name) }
            }
        }
        XCTAssertEqual(
            stale, [], "outputs differ from Tests/Snapshots; `scripts/snapshots` re-records them and shows the diff")
    }

    /// Runs btlens from the package's root, with its paths replaced by placeholders so that any checkout
    /// (and any home) gives the same bytes.
    static func render(_ arguments: [String]) throws -> String {
        let run = try runCLI(
            arguments, environment: ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "NO_COLOR": "1"],
            cwd: root.path)
        XCTAssertEqual(run.status, 0, "btlens \(arguments.joined(separator: " ")): \(run.stderr)")
        return run.stdout.replacingOccurrences(of: root.path, with: "<root>")
    }

    /// Compares with the stored snapshot, or stores it when recording; false when they differ.
    static func matches(_ name: String, _ actual: String) throws -> Bool {
        let file = folder.appendingPathComponent(name)
        if recording {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return true
        }
        guard let stored = FileManager.default.contents(atPath: file.path) else {
            XCTFail("\(name): no snapshot stored")
            return false
        }
        let expected = String(decoding: stored, as: UTF8.self)
        guard expected != actual else { return true }
        let (old, new) = (expected.split(separator: "\n"), actual.split(separator: "\n"))
        let line = zip(old, new).enumerated().first { $1.0 != $1.1 }?.offset ?? min(old.count, new.count)
        let (was, now) = excerpts(line < old.count ? old[line] : "(end)", line < new.count ? new[line] : "(end)")
        XCTFail("\(name): line \(line + 1) differs\n  stored: \(was)\n  now:    \(now)")
        return false
    }

    /// Two long lines (a report's JSON is one) shown from a little before where they first differ.
    static func excerpts(_ a: Substring, _ b: Substring) -> (String, String) {
        let (x, y) = (Array(a), Array(b))
        guard max(x.count, y.count) > 160 else { return (String(a), String(b)) }
        let first = zip(x, y).enumerated().first { $1.0 != $1.1 }?.offset ?? min(x.count, y.count)
        let from = max(0, first - 60)
        func cut(_ c: [Character]) -> String {
            let end = min(c.count, from + 120)
            return (from > 0 ? "…(column \(from + 1)) " : "") + String(c[min(from, c.count)..<end])
                + (end < c.count ? " …" : "")
        }
        return (cut(x), cut(y))
    }
}
