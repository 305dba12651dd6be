import BTLensTestSupport
import Foundation
import XCTest

/// `btlens export --dataset`: the store's tables as files, read back by DuckDB (its Python package)
/// and Spark (pyspark) through the recipes in scripts/, and compared with the store of the same
/// captures.
final class StoreDatasetTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-dataset-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// Every bundled capture, and a file that cannot be read: both the store and the dataset.
    private func build() throws -> (db: String, dataset: String) {
        let captures = folder + "/captures"
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Captures").path, toPath: captures)
        try Data("btsnoop\0\0\0".utf8).write(to: URL(fileURLWithPath: captures + "/cut.btsnoop"))
        let (db, dataset) = (folder + "/store.sqlite", folder + "/dataset")
        let logs = ["--app-log-beside", ".app.log"]
        XCTAssertEqual(try runCLI(["index", "--db", db, captures] + logs).status, 1)
        let export = try runCLI(["export", "--dataset", dataset, captures] + logs)
        XCTAssertEqual(export.status, 1, "the cut file is said")
        XCTAssertTrue(export.stdout.hasPrefix("\(dataset): 19 captures written in "), export.stdout)
        XCTAssertTrue(export.stderr.contains("cut.btsnoop: btsnoop file header is cut short"), export.stderr)
        return (db, dataset)
    }

    func testDatasetHasAFolderPerTableAndAFilePerCapture() throws {
        let (_, dataset) = try build()
        let schema =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dataset + "/schema.json")))
            as? [String: [[String: String]]] ?? [:]
        XCTAssertEqual(
            Set(schema.keys),
            ["captures", "connections", "subscriptions", "frames", "diagnostics", "commands", "app_logs"])
        for (table, columns) in schema {
            let files = try FileManager.default.contentsOfDirectory(atPath: "\(dataset)/\(table)")
            XCTAssertEqual(files.count, 19, "\(table): one file per capture, none left half written: \(files)")
            for file in files {
                let text = try String(contentsOfFile: "\(dataset)/\(table)/\(file)", encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
                    XCTAssertEqual(row.keys.sorted(), columns.compactMap { $0["name"] }.sorted(), "\(table)/\(file)")
                }
            }
        }
    }

    func testDuckDBOverTheDatasetEqualsTheStore() throws {
        try XCTSkipUnless(python(has: "duckdb"), "DuckDB's Python package is not installed (pip install duckdb)")
        let (db, dataset) = try build()
        let run = try script("dataset-duckdb.py", [dataset, "--compare", db])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("frames: 91 rows in the dataset, 91 in the store, equal"), run.stdout)
        XCTAssertTrue(run.stdout.contains("app_logs: 1 rows in the dataset, 1 in the store, equal"), run.stdout)
        XCTAssertEqual(run.stdout.components(separatedBy: ", equal\n").count, 8, run.stdout)
        // A named question (docs/index.md), by DuckDB over the files.
        let question = try script(
            "dataset-duckdb.py",
            [
                dataset,
                "SELECT c.accessory_firmware, count(*) AS n FROM diagnostics d JOIN captures c ON c.id = d.capture WHERE d.id = 'a5.checksum.bad' AND c.accessory_firmware >= '1.5' GROUP BY 1 ORDER BY 1",
            ])
        XCTAssertEqual(question.stdout, "accessory_firmware,n\n1.5.0,1\n2.1.0,1\n", question.stderr)
    }

    /// docs/index.md: "The questions above run unchanged in DuckDB", with the store's answers.
    func testTheDocsQuestionsGiveTheStoresAnswersInDuckDB() throws {
        try XCTSkipUnless(python(has: "duckdb"), "DuckDB's Python package is not installed (pip install duckdb)")
        let (db, dataset) = try build()
        let page = try String(contentsOf: packageRoot.appendingPathComponent("docs/index.md"), encoding: .utf8)
        let questions = page.components(separatedBy: "```sql\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        XCTAssertGreaterThanOrEqual(questions.count, 4)
        for sql in questions {
            let store = try runCLI(["query", "--db", db, sql, "--format", "csv"])
            let duck = try script("dataset-duckdb.py", [dataset, sql])
            XCTAssertEqual(duck.status, 0, duck.stderr)
            XCTAssertEqual(duck.stdout, store.stdout, sql)
        }
    }

    func testSparkOverTheDatasetEqualsTheStore() throws {
        try XCTSkipUnless(python(has: "pyspark"), "pyspark is not installed")
        let (db, dataset) = try build()
        let run = try script("dataset-spark.py", [dataset, "--compare", db])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(run.stdout.components(separatedBy: ", equal\n").count, 8, run.stdout)
    }

    private func python(has module: String) -> Bool {
        (try? script(nil, ["-c", "import \(module)"]).status) == 0
    }

    private func script(_ name: String?, _ arguments: [String]) throws -> CLIRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["python3"] + (name.map { [packageRoot.appendingPathComponent("scripts/\($0)").path] } ?? []) + arguments
        let (out, err) = (Pipe(), FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString))
        FileManager.default.createFile(atPath: err.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: err) }
        p.standardOutput = out
        p.standardError = try FileHandle(forWritingTo: err)
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLIRun(
            status: p.terminationStatus, stdout: String(decoding: data, as: UTF8.self),
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
