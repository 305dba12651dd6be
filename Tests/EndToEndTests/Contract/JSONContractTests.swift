import BTLensTestSupport
import Foundation
import XCTest

/// The JSON contract, checked on what the built CLI writes: every JSONL line is one object with
/// unique keys whose first key is `type`, and `stats` and `report` JSON have unique keys throughout.
/// Consumers' parsers keep the last of two equal keys, so a duplicate loses a field without a word.
final class JSONContractTests: XCTestCase {
    static let root = packageRoot

    /// The sample captures, the hostile ones, and the real ones in ../shared/captures when present.
    func captures() throws -> [String] {
        let samples = Self.root.appendingPathComponent("Captures")
        var files = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { $0 != "README.md" }
            .sorted()
            .map { samples.appendingPathComponent($0).path }
        let hostile = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-json-\(getpid())")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: hostile) }
        for c in HostileCaptures.all(zeroLengthRecords: 100) {
            let url = hostile.appendingPathComponent(c.file)
            try Data(c.bytes).write(to: url)
            files.append(url.path)
        }
        let shared = Self.root.deletingLastPathComponent().appendingPathComponent("shared/captures")
        if let real = try? FileManager.default.contentsOfDirectory(atPath: shared.path) {
            files += real.filter { $0 != "SOURCES.txt" }.sorted().map { shared.appendingPathComponent($0).path }
        }
        return files
    }

    func testEveryJSONLLineIsAnObjectWithUniqueKeysLedByType() throws {
        var lines = 0
        for file in try captures() {
            for verbose in [false, true] {
                let run = try runCLI(
                    ["timeline", file, "--format", "jsonl", "--no-dissectors"] + (verbose ? ["--verbose"] : []))
                for (n, line) in run.stdout.split(separator: "\n").enumerated() {
                    lines += 1
                    do {
                        let keys = try StrictJSON.check(String(line))
                        XCTAssertEqual(keys.first, "type", "\(file) line \(n + 1): \(line)")
                    } catch {
                        XCTFail("\(file) line \(n + 1): \(error): \(line)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(lines, 1000)
    }

    func testStatsAndReportJSONHaveUniqueKeys() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-json-report-\(getpid()).json")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        for file in try captures() {
            let stats = try runCLI(["stats", file, "--format", "json"])
            if stats.status == 0 { XCTAssertNoThrow(try StrictJSON.check(stats.stdout), "stats of \(file)") }
            let report = try runCLI(["report", file, "-o", out.path])
            if report.status == 0 {
                XCTAssertNoThrow(
                    try StrictJSON.check(String(decoding: try Data(contentsOf: out), as: UTF8.self)),
                    "report of \(file)")
            }
        }
    }

    func testTheCheckerRefusesADuplicateKey() {
        XCTAssertThrowsError(try StrictJSON.check(#"{"type":"att","record":1,"type":"Primary Service (2800)"}"#))
        XCTAssertThrowsError(try StrictJSON.check(#"{"a":{"b":1,"b":2}}"#))
        XCTAssertEqual(
            try StrictJSON.check(#"{"type":"att","fields":{"type":1},"x":[{"type":2}]}"#), ["type", "fields", "x"])
    }
}
