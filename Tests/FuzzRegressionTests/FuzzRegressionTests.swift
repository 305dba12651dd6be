import Foundation
import XCTest
import BTLensFuzz

/// Replays what fuzzing found (Fuzz/regressions/TARGET/*) and every target's seeds: each must
/// return. A trap here is a crash a capture could cause.
final class FuzzRegressionTests: XCTestCase {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/regressions").path

    func testRegressionInputsReplay() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.regressions).filter { !$0.hasPrefix(".") }
        for folder in folders.sorted() {
            let target = try XCTUnwrap(FuzzTarget.named(folder), "Fuzz/regressions/\(folder) names no fuzz target")
            let dir = Self.regressions + "/" + folder
            for file in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where !file.hasPrefix(".") {
                let bytes = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/" + file))
                target.run(Array(bytes))
            }
        }
        XCTAssert(FileManager.default.fileExists(atPath: Self.regressions), "Fuzz/regressions was not found")
    }

    func testEveryTargetRunsItsSeedsAndTheirPrefixes() {
        XCTAssertEqual(Set(FuzzTarget.all.map(\.name)).count, FuzzTarget.all.count)
        for target in FuzzTarget.all {
            let seeds = target.seeds()
            XCTAssert(!seeds.isEmpty || target.name == "pcap", "\(target.name) has no seeds")
            for seed in seeds {
                // Every cut of a seed: lengths that run past the end at every layer.
                for end in stride(from: 0, through: seed.count, by: max(1, seed.count / 64)) { target.run(Array(seed.prefix(end))) }
            }
        }
    }
}
