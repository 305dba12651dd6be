import BTLensTestSupport
import Foundation
import XCTest

/// docs/index.md is true: its tables are the declared ones (as `export --dataset` writes them in
/// schema.json), and each SQL question prints, on a store of the bundled captures, the output
/// shown under it.
final class StoreDocsTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-store-docs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private var page: String {
        get throws { try String(contentsOf: packageRoot.appendingPathComponent("docs/index.md"), encoding: .utf8) }
    }

    func testDocsTablesAreTheDeclaredColumnsInOrder() throws {
        let run = try runCLI(["export", "--dataset", folder, "Captures/ble_a5_session.btsnoop"], cwd: packageRoot.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        let schema = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder + "/schema.json")), options: [])
        // The JSON object's order is the declaration's: read the table names in the order written.
        let text = try String(contentsOfFile: folder + "/schema.json", encoding: .utf8)
        func place(_ table: String) -> String.Index { text.range(of: "\"\(table)\":")?.lowerBound ?? text.endIndex }
        let declared = (schema as? [String: [[String: String]]] ?? [:]).sorted { place($0.key) < place($1.key) }
        var documented: [(String, [String])] = []
        for section in try page.components(separatedBy: "\n### `").dropFirst() {
            let name = String(section.prefix { $0 != "`" })
            let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map {
                $0.split(separator: "|").prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                    .joined(separator: " ")
            }
            documented.append((name, rows))
        }
        XCTAssertEqual(documented.map(\.0), declared.map(\.key), "the tables, in order")
        for ((name, rows), (_, columns)) in zip(documented, declared) {
            XCTAssertEqual(rows, columns.map { "\($0["name"] ?? "") \($0["type"] ?? "")" }, name)
        }
    }

    func testEveryQuestionPrintsWhatThePageShows() throws {
        let db = folder + "/store.sqlite"
        XCTAssertEqual(try runCLI(["index", "--db", db, "Captures"], cwd: packageRoot.path).status, 0)
        let blocks = try page.components(separatedBy: "```sql\n").dropFirst()
        XCTAssertGreaterThanOrEqual(blocks.count, 4)
        for block in blocks {
            let parts = block.components(separatedBy: "```")
            let sql = parts[0]
            guard parts.count > 2, parts[1].hasPrefix("\n\n"), parts[2].hasPrefix("text\n") else {
                XCTFail("no ```text block after:\n\(sql)")
                continue
            }
            let run = try runCLI(["query", "--db", db, sql])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stdout, String(parts[2].dropFirst("text\n".count)), sql)
        }
    }
}
