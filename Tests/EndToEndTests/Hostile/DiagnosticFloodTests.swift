import BTLensCore
import BTLensDefinitions
import BTLensTestSupport
import Foundation
import XCTest

/// A definition that does not fit the device, end to end through the built CLI: the timeline shows
/// the first diagnostics of each id and stream per second and counts the rest, `stats` counts all of
/// them, and the mismatch is said once per stream.
final class DiagnosticFloodTests: XCTestCase {
    static let repo = packageRoot
    static let forced = [
        "--dissectors", repo.appendingPathComponent("Dissectors").path,
        "--decode-as", "att:0x0013=aurora-headphones", "--decode-as", "att:0x0015=aurora-headphones",
    ]

    /// Another vendor's device (not the definition's AA:BB:CC): `rounds` times, the phone sends
    /// command 0x20 with no payload (SetEQPreset to the definition, whose preset byte is missing) and
    /// the device sends event 0x55, which the definition does not know. 400 rounds a second.
    static func capture(rounds: Int) -> [UInt8] {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        for i in 0..<rounds {
            let seq = UInt8(truncatingIfNeeded: i)
            s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: seq, payload: [])
            s.frame(handle: h, attHandle: 0x0015, .received, command: 0x55, sequence: seq, payload: [0x01])
        }
        s.disconnect(handle: h)
        return s.bytes
    }

    func file(rounds: Int) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-flood-\(getpid())-\(rounds).btsnoop")
        try Data(Self.capture(rounds: rounds)).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// The JSON objects of a JSONL output.
    func objects(_ jsonl: String) throws -> [[String: Any]] {
        try jsonl.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func diagnostics(_ jsonl: String, id: String) throws -> [[String: Any]] {
        try objects(jsonl).filter { $0["type"] as? String == "diagnostic" && $0["id"] as? String == id }
    }

    /// Never lost: per id, the diagnostics the timeline shows and those its lines count are what
    /// `stats` counts, which is every one the script made.
    func testShownAndSuppressedAddUpToWhatStatsCounts() throws {
        let path = try file(rounds: 1000)
        let timeline = try runCLI(["timeline", path, "--format", "jsonl"] + Self.forced)
        let stats = try runCLI(["stats", path, "--format", "json"] + Self.forced)
        XCTAssertEqual([timeline.status, stats.status], [0, 0], timeline.stderr + stats.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let counted = try XCTUnwrap(json["diagnostics"] as? [String: Int])
        XCTAssertEqual(
            counted, ["a5.payload.short": 1000, "a5.request.unanswered": 1000, "a5.definition.mismatch": 2])
        var seen: [String: Int] = [:]
        for d in try objects(timeline.stdout) where d["type"] as? String == "diagnostic" {
            if d["id"] as? String == "diagnostic.suppressed" {
                seen[try XCTUnwrap(d["suppressed_id"] as? String), default: 0] += try XCTUnwrap(d["count"] as? Int)
            } else {
                seen[try XCTUnwrap(d["id"] as? String), default: 0] += 1
            }
        }
        XCTAssertEqual(seen, counted)
    }

    /// 399, 400 and 201 `a5.payload.short` in the capture's three seconds: 20 of each shown, and one
    /// line each for the rest, at the last one's record, which ends its second.
    func testTwentyASecondAreShownAndTheRestSaidAtTheLastOne() throws {
        let path = try file(rounds: 1000)
        let jsonl = try runCLI(["timeline", path, "--format", "jsonl"] + Self.forced).stdout
        XCTAssertEqual(try diagnostics(jsonl, id: "a5.payload.short").count, 60)
        let lines = try diagnostics(jsonl, id: "diagnostic.suppressed").filter {
            $0["suppressed_id"] as? String == "a5.payload.short"
        }
        XCTAssertEqual(lines.map { $0["count"] as? Int }, [379, 380, 181])
        XCTAssertEqual(lines.map { $0["record"] as? Int }, [800, 1600, 2002])
        XCTAssertEqual(lines.map { $0["last_record"] as? Int }, [800, 1600, 2002])
        XCTAssertEqual(lines.map { $0["att_handle"] as? Int }, [0x13, 0x13, 0x13])
        XCTAssertEqual(lines.map { $0["connection"] as? Int }, [0x40, 0x40, 0x40])
        let text = try runCLI(["timeline", path] + Self.forced).stdout.split(separator: "\n")
        XCTAssertTrue(
            text.contains(
                "#800         0.998750 < 0x0040 !NOTE diagnostic.suppressed: … and 379 more a5.payload.short on att_handle 0x0013 in the second from 0.000 s (last at #800)"
            ))
        // 2,002 diagnostics in the capture: 142 lines for them, and 7 that count the other 1,860.
        XCTAssertEqual(text.filter { $0.contains(" !") }.count, 149)
        let all = try runCLI(["timeline", path, "--diagnostics-per-second", "0"] + Self.forced).stdout
        XCTAssertEqual(all.split(separator: "\n").filter { $0.contains(" !") }.count, 2002)
        XCTAssertFalse(all.contains("diagnostic.suppressed"))
    }

    /// The definition is said not to fit once per stream, at the 32nd frame, in the timeline and in stats.
    func testTheMismatchIsSaidOncePerStream() throws {
        let path = try file(rounds: 1000)
        let notes = try diagnostics(
            runCLI(["timeline", path, "--format", "jsonl"] + Self.forced).stdout, id: "a5.definition.mismatch")
        XCTAssertEqual(notes.map { $0["record"] as? Int }, [66, 67])
        XCTAssertEqual(notes.map { $0["att_handle"] as? Int }, [0x13, 0x15])
        XCTAssertEqual(notes.map { $0["direction"] as? String }, ["sent", "received"])
        XCTAssertEqual(notes.map { $0["failed"] as? Int }, [32, 32])
        XCTAssertEqual(notes.map { $0["frames"] as? Int }, [32, 32])
        XCTAssertEqual(notes.map { $0["dissector"] as? String }, ["aurora-headphones", "aurora-headphones"])
        XCTAssertEqual(notes.map { ($0["origin"] as? String)?.hasSuffix("/aurora-headphones.yaml") }, [true, true])
        XCTAssertEqual(
            notes.first?["message"] as? String,
            "this definition does not seem to fit this device: 32 of 32 frames on att_handle 0x0013 fail to decode with aurora-headphones (\(Self.repo.path)/Dissectors/aurora-headphones.yaml: 32 payload short); check its bind: (devices:) and any --decode-as, or run with --no-dissectors"
        )
    }

    /// No false alarm where a definition fits: the samples, and a benchmark capture's bound Aurora
    /// and Lawaken sessions (thousands of frames, every 50th session with a short payload among its faults).
    func testTheShippedDefinitionsFitTheirDevices() throws {
        let table = DefinitionLoader.load([Self.repo.appendingPathComponent("Dissectors").path], required: true).table
        var benchmark: [UInt8] = []
        BenchmarkCapture.generate(bytes: 2 << 20) { benchmark += $0 }
        var named = 0
        for capture in SampleCaptures.all.map(\.session.bytes) + [benchmark] {
            for e in try analyze(capture, dissectors: table) {
                if case .frame(let f) = e.body, f.decoded?.name != nil { named += 1 }
                XCTAssertNotEqual(e.diagnostic?.id, "a5.definition.mismatch", e.diagnostic?.message ?? "")
            }
        }
        XCTAssertGreaterThan(named, 10_000)
    }

    /// `follow` throttles as the timeline does: the same lines from a capture on stdin.
    func testFollowPrintsWhatTheTimelinePrints() throws {
        let path = try file(rounds: 1000)
        let timeline = try runCLI(["timeline", path, "--format", "jsonl"] + Self.forced).stdout
        let run = try runCLI(["follow", "-", "--format", "jsonl"] + Self.forced, stdin: path)
        XCTAssertEqual(run.status, 0)
        let followed = run.stdout
        XCTAssertEqual(followed, timeline)
        XCTAssertTrue(followed.contains(#""id":"diagnostic.suppressed""#))
    }

    /// follow's closing line counts diagnostics as stats does: a cut condition's later consequences,
    /// said once (--verbose detail), are not counted again (the benchmark capture cuts records).
    func testFollowCountsTheDiagnosticsStatsCounts() throws {
        var bytes: [UInt8] = []
        BenchmarkCapture.generate(bytes: 1_000_000) { bytes += $0 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-follow-count-\(getpid()).btsnoop")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let stats = try runCLI(["stats", url.path, "--format", "json", "--no-dissectors"]).stdout
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])
        let counted = try XCTUnwrap(json["diagnostics"] as? [String: Int]).values
        let followed = try runCLI(["follow", "-", "--no-dissectors"], stdin: url.path).stderr
        XCTAssertTrue(followed.contains(", \(counted.reduce(0, +)) diagnostics"), followed)
        XCTAssertGreaterThan(counted.reduce(0, +), 0)
    }
}
