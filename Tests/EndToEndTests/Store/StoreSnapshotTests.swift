import BTLensTestSupport
import Foundation
import XCTest

/// The store's tables for the bundled captures, and the schema migration v1 made, compared with
/// Tests/Snapshots/store (re-recorded by `scripts/snapshots`). A change of the tables' declarations
/// that is not a new migration shows here as a changed schema-v1.sql.
final class StoreSnapshotTests: XCTestCase {
    /// The file's name instead of its path, which depends on the checkout.
    static let name = "substr(c.path, length(rtrim(c.path, replace(c.path, '/', ''))) + 1) AS file"

    static let queries: [(file: String, sql: String)] =
        [
            (
                "schema-v1.sql",
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'grdb%' ORDER BY name"
            ),
            (
                "captures.csv",
                "SELECT \(name), c.size, c.sha256, c.format, c.link_type, c.records, c.first_time, c.last_time, c.connections, c.frames, c.diagnostics, c.errors, c.undecoded_bytes, c.phone, c.os, c.controller_firmware, c.accessory_name, c.accessory_model, c.accessory_manufacturer, c.accessory_firmware, c.error FROM captures c ORDER BY file"
            ),
        ]
        + ["connections", "subscriptions", "frames", "diagnostics", "commands"].map { table in
            (
                "\(table).csv",
                "SELECT \(name), t.* FROM \(table) t JOIN captures c ON c.id = t.capture ORDER BY file, t.rowid"
            )
        }

    func testStoreOfTheBundledCapturesMatchesItsSnapshots() throws {
        let db = NSTemporaryDirectory() + "btlens-store-snapshot-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) } }
        _ = try SnapshotTests.render(["index", "--db", db, "Captures"])
        var stale: [String] = []
        for (file, sql) in Self.queries {
            // The capture id is a hash of the path: left out with the path.
            let csv = try SnapshotTests.render(["query", "--db", db, sql, "--format", "csv"])
            let kept = csv.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                file.hasSuffix(".sql") || file == "captures.csv" ? String(line) : Self.droppingCaptureColumn(line)
            }
            if try !SnapshotTests.matches("store/\(file)", kept.joined(separator: "\n")) { stale.append(file) }
        }
        XCTAssertEqual(stale, [], "the store differs from Tests/Snapshots/store; `scripts/snapshots` re-records it")
    }

    /// `file,capture,…` → `file,…`: the second column is the capture id.
    static func droppingCaptureColumn(_ line: Substring) -> String {
        let parts = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return String(line) }
        return parts[0] + "," + parts[2]
    }
}
