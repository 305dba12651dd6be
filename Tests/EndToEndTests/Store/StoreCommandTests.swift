import BTLensTestSupport
import Foundation
import XCTest

/// `btlens index`, `query` and `export --dataset`, run as a user runs them.
final class StoreCommandTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func query(_ db: String, _ sql: String) throws -> [[String: Any]] {
        let run = try runCLI(["query", "--db", db, sql, "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
    }

    /// The store's counts are `btlens stats`' of each file: records, times, connections, A5
    /// frames, diagnostics by id and the commands table, over every sample (and every real
    /// capture in ../shared when it is there).
    func testIndexCountsEqualStatsOfEverySample() throws {
        let db = folder + "/s.sqlite"
        var paths = [packageRoot.appendingPathComponent("Captures").path]
        let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures").path
        if FileManager.default.fileExists(atPath: shared) { paths.append(shared) }
        let run = try runCLI(["index", "--db", db] + paths, timeout: 600)
        XCTAssertEqual(run.status, 0, run.stderr)
        let captures = try query(db, "SELECT id, path, records, first_time, last_time, connections FROM captures")
        XCTAssertGreaterThanOrEqual(captures.count, 18)
        for c in captures {
            let path = c["path"] as? String ?? ""
            let id = c["id"] as? Int64 ?? (c["id"] as? NSNumber)?.int64Value ?? 0
            let stats = try runCLI(["stats", path, "--format", "json"], timeout: 300)
            let s = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any] ?? [:]
            XCTAssertEqual(c["records"] as? Int, s["records"] as? Int, path)
            XCTAssertEqual(c["first_time"] as? String, s["first_time"] as? String, path)
            XCTAssertEqual(c["last_time"] as? String, s["last_time"] as? String, path)
            XCTAssertEqual(c["connections"] as? Int, (s["connections"] as? [Any])?.count, path)
            let connections = try query(db, "SELECT count(*) n FROM connections WHERE capture = \(id)")
            XCTAssertEqual(connections.first?["n"] as? Int, (s["connections"] as? [Any])?.count, path)
            let a5 = s["a5_frames"] as? [String: Int] ?? [:]
            let frames = try query(
                db,
                "SELECT count(*) n, coalesce(sum(checksum_ok = 0), 0) bad FROM frames WHERE capture = \(id) AND type = 'a5'"
            )
            XCTAssertEqual(frames.first?["n"] as? Int, a5["total"] ?? 0, path)
            XCTAssertEqual(frames.first?["bad"] as? Int, a5["checksum_bad"] ?? 0, path)
            let byID = try query(
                db, "SELECT id, count(*) n FROM diagnostics WHERE capture = \(id) AND verbose_only = 0 GROUP BY id")
            let stored = Dictionary(
                uniqueKeysWithValues: byID.map { ($0["id"] as? String ?? "", $0["n"] as? Int ?? 0) })
            XCTAssertEqual(stored, s["diagnostics"] as? [String: Int] ?? [:], path)
            try compareCommands(db, id, s["commands"] as? [[String: Any]] ?? [], path)
        }
    }

    private func compareCommands(_ db: String, _ id: Int64, _ stats: [[String: Any]], _ path: String) throws {
        let rows = try query(db, "SELECT * FROM commands WHERE capture = \(id) ORDER BY dissector, command")
        XCTAssertEqual(rows.count, stats.count, path)
        for (row, s) in zip(rows, stats) {
            for key in ["dissector", "command", "sent", "received", "answered", "unanswered"] {
                XCTAssertEqual("\(row[key] ?? "-")", "\(s[key] ?? "-")", "\(path) \(key)")
            }
            XCTAssertEqual(row["command_name"] as? String, s["name"] as? String, path)
            let latency = s["latency_ms"] as? [String: Double]
            for p in ["min", "median", "p95", "max"] {
                XCTAssertEqual(row["latency_\(p)_ms"] as? Double, latency?[p], "\(path) \(p)")
            }
        }
    }
}
