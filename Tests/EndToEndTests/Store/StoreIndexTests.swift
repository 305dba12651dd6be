import BTLensTestSupport
import Foundation
import XCTest

/// `btlens index` over a folder that changes: unchanged files passed over, changed ones read
/// again, removed ones pruned, unreadable ones a row; `query`'s formats and refusals.
final class StoreIndexTests: XCTestCase {
    private var folder = ""
    private var db: String { folder + "/store.sqlite" }
    private var captures: String { folder + "/captures" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-index-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: captures + "/nested", withIntermediateDirectories: true)
        for (name, sample) in [
            ("a.btsnoop", "ble_a5_faults"), ("nested/b.btsnoop", "ble_a5_session"), ("c.btsnoop", "bredr_iap2_ea"),
        ] {
            try FileManager.default.copyItem(
                atPath: packageRoot.appendingPathComponent("Captures/\(sample).btsnoop").path,
                toPath: "\(captures)/\(name)")
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func index(_ paths: [String]? = nil) throws -> CLIRun {
        try runCLI(["index", "--db", db] + (paths ?? [captures]))
    }

    private func csv(_ sql: String) throws -> String {
        let run = try runCLI(["query", "--db", db, sql, "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout
    }

    /// "…: 3 indexed (…), 0 unchanged, 0 unreadable, 0 pruned; 3 files in …": the counts.
    private func counts(_ run: CLIRun) -> String {
        let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let counted = line.split(separator: ";").first.map(String.init) ?? ""
        return counted.replacingOccurrences(of: db + ": ", with: "")
    }

    func testIndexPassesOverUnchangedFilesReadsChangedOnesAndPrunesRemovedOnes() throws {
        let first = try index()
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(counts(first), "3 indexed (26 frames, 26 diagnostics), 0 unchanged, 0 unreadable, 0 pruned")
        XCTAssertEqual(counts(try index()), "0 indexed (0 frames, 0 diagnostics), 3 unchanged, 0 unreadable, 0 pruned")
        // A new time with the same bytes: passed over by its hash, its time kept.
        let a = captures + "/a.btsnoop"
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: a)
        XCTAssertEqual(counts(try index()), "0 indexed (0 frames, 0 diagnostics), 3 unchanged, 0 unreadable, 0 pruned")
        XCTAssertEqual(
            try csv("SELECT modified_ns FROM captures WHERE path LIKE '%/a.btsnoop'"), "modified_ns\n1000000000000000\n"
        )
        // New bytes: read again, its old rows gone. Removed: pruned with its rows.
        try FileManager.default.removeItem(atPath: a)
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("Captures/ble_firmware_after.btsnoop").path, toPath: a)
        try FileManager.default.removeItem(atPath: captures + "/c.btsnoop")
        XCTAssertEqual(counts(try index()), "1 indexed (16 frames, 2 diagnostics), 1 unchanged, 0 unreadable, 1 pruned")
        XCTAssertEqual(
            try csv(
                "SELECT substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) f, frames, (SELECT count(*) FROM frames WHERE capture = c.id) n FROM captures c ORDER BY f"
            ), "f,frames,n\na.btsnoop,16,16\nb.btsnoop,12,12\n")
        XCTAssertEqual(try csv("SELECT count(*) FROM diagnostics"), "count(*)\n2\n", "c's and a's old rows are gone")
        // A path indexed alone prunes nothing outside it.
        XCTAssertEqual(
            counts(try index([captures + "/nested"])),
            "0 indexed (0 frames, 0 diagnostics), 1 unchanged, 0 unreadable, 0 pruned")
        XCTAssertEqual(try csv("SELECT count(*) FROM captures"), "count(*)\n2\n")
    }

    func testAnUnreadableFileIsARowAndTheRestAreIndexed() throws {
        try Data("btsnoop\0\0\0".utf8).write(to: URL(fileURLWithPath: captures + "/cut.btsnoop"))
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: captures + "/README.txt"))
        let run = try index()
        XCTAssertEqual(run.status, 1, "a file that could not be read exits 1, after the index is written")
        XCTAssertEqual(counts(run), "3 indexed (26 frames, 26 diagnostics), 0 unchanged, 1 unreadable, 0 pruned")
        XCTAssertTrue(run.stderr.contains("cut.btsnoop: btsnoop file header is cut short at offset 10"), run.stderr)
        XCTAssertTrue(run.stderr.contains("note: skipped, not a capture: \(captures)/README.txt"), run.stderr)
        XCTAssertEqual(
            try csv("SELECT records, error FROM captures WHERE error IS NOT NULL"),
            "records,error\n0,btsnoop file header is cut short at offset 10: it needs 16 bytes\n")
    }

    /// A bugreport's phone and Android release; an iPhone capture's notes say the same of iOS.
    func testABugreportGivesThePhoneAndItsAndroidRelease() throws {
        let text =
            "Build: UP1A.231005.007\nBuild fingerprint: 'google/panther/panther:14/UP1A.231005.007/1:user/release-keys'\n"
            + "[ro.build.version.release]: [14]\n[ro.product.manufacturer]: [Google]\n[ro.product.model]: [Pixel 7]\n"
        let zip = BugreportZip.make([
            (name: "FS/data/misc/bluetooth/logs/btsnoop_hci.log", bytes: SampleCaptures.session().bytes, deflate: true),
            (name: "bugreport-panther-UP1A.231005.007.txt", bytes: Array(text.utf8), deflate: true),
        ])
        try Data(zip).write(to: URL(fileURLWithPath: captures + "/bugreport.zip"))
        XCTAssertEqual(try index().status, 0)
        XCTAssertEqual(
            try csv("SELECT format, records, frames, phone, os FROM captures WHERE path LIKE '%.zip'"),
            "format,records,frames,phone,os\nbtsnoop,58,12,Google Pixel 7,Android 14 (UP1A.231005.007)\n")
    }

    /// The app's log beside its capture: its findings are the capture's diagnostics, as with
    /// `stats --app-log`; a changed log reads its capture again.
    func testAnAppLogBesideItsCaptureGivesItsFindings() throws {
        let (capture, log) = (captures + "/run.btsnoop", captures + "/run.app.log")
        for (from, to) in [("ble_app_log.btsnoop", capture), ("ble_app_log.app.log", log)] {
            try FileManager.default.copyItem(
                atPath: packageRoot.appendingPathComponent("Captures/\(from)").path, toPath: to)
        }
        let run = try runCLI(["index", "--db", db, captures, "--app-log-beside", ".app.log"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("run.app.log: an app log, read with its capture (--app-log-beside)"), run.stderr)
        let stats = try runCLI(["stats", capture, "--app-log", log, "--format", "json"])
        let counted = (try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])?[
            "diagnostics"]
        XCTAssertEqual(counted as? [String: Int], ["app.rx.not_logged": 1, "app.tx.not_on_air": 1])
        XCTAssertEqual(
            try csv(
                "SELECT d.id, d.record FROM diagnostics d JOIN captures c ON c.id = d.capture WHERE c.path = '\(capture)' ORDER BY d.record"
            ),
            "id,record\napp.tx.not_on_air,10\napp.rx.not_logged,12\n")
        XCTAssertEqual(
            try csv(
                "SELECT c.app_logs, a.source, a.method, a.offset_ms, a.matched FROM app_logs a JOIN captures c ON c.id = a.capture"
            ),
            "app_logs,source,method,offset_ms,matched\n1,\(log),content,73.75,10\n")
        // The log changes: its capture is read again, the others are not.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 2_000_000)], ofItemAtPath: log)
        let again = try runCLI(["index", "--db", db, captures, "--app-log-beside", ".app.log"])
        XCTAssertEqual(counts(again), "1 indexed (11 frames, 2 diagnostics), 3 unchanged, 0 unreadable, 0 pruned")
    }

    func testQueryPrintsATableJSONAndCSV() throws {
        XCTAssertEqual(try index().status, 0)
        let sql =
            "SELECT id, count(*) AS n, 'a,\"b\"' AS quoted, NULL AS empty, 1.5 AS x FROM diagnostics WHERE id LIKE 'a5.s%' GROUP BY id ORDER BY id"
        XCTAssertEqual(
            try csv(sql),
            "id,n,quoted,empty,x\na5.sequence.duplicate,1,\"a,\"\"b\"\"\",,1.5\na5.sequence.gap,3,\"a,\"\"b\"\"\",,1.5\n"
        )
        let json = try runCLI(["query", "--db", db, sql, "--format", "json"])
        XCTAssertEqual(
            json.stdout,
            "[\n{\"id\":\"a5.sequence.duplicate\",\"n\":1,\"quoted\":\"a,\\\"b\\\"\",\"empty\":null,\"x\":1.5},\n"
                + "{\"id\":\"a5.sequence.gap\",\"n\":3,\"quoted\":\"a,\\\"b\\\"\",\"empty\":null,\"x\":1.5}\n]\n")
        let table = try runCLI(["query", "--db", db, sql])
        XCTAssertEqual(
            table.stdout,
            """
            id                     n  quoted  empty  x
            ---------------------  -  ------  -----  ---
            a5.sequence.duplicate  1  a,"b"          1.5
            a5.sequence.gap        3  a,"b"          1.5
            (2 rows)

            """)
        let none = try runCLI(["query", "--db", db, "SELECT id FROM diagnostics WHERE 0", "--format", "json"])
        XCTAssertEqual(none.stdout, "[]\n")
    }

    func testQueryRefusesWritesSeveralStatementsAndWhatIsNoStore() throws {
        XCTAssertEqual(try index().status, 0)
        for (arguments, message) in [
            (["--db", db, "DELETE FROM captures"], "attempt to write a readonly database"),
            (["--db", db, "SELECT 1; SELECT 2"], "give one SQL statement at a time"),
            (["--db", db, "SELECT nope FROM captures"], "no such column: nope"),
            (["--db", folder + "/none.sqlite", "SELECT 1"], "no such store (make one with btlens index"),
            (["--db", captures + "/a.btsnoop", "SELECT 1"], "file is not a database"),
        ] {
            let run = try runCLI(["query"] + arguments)
            XCTAssertEqual(run.status, 1, arguments.joined(separator: " "))
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stdout, "")
        }
        XCTAssertEqual(try csv("SELECT count(*) FROM captures"), "count(*)\n3\n")
    }

    /// WAL: a query reads while an index writes, and sees whole captures only.
    func testQueriesRunWhileAnIndexWrites() throws {
        let many = folder + "/many"
        try FileManager.default.createDirectory(atPath: many, withIntermediateDirectories: true)
        let sample = packageRoot.appendingPathComponent("Captures/ble_a5_session.btsnoop").path
        for i in 0..<300 { try FileManager.default.copyItem(atPath: sample, toPath: "\(many)/\(i).btsnoop") }
        XCTAssertEqual(try index([captures]).status, 0)
        let indexing = DispatchGroup()
        nonisolated(unsafe) var run: CLIRun?
        let arguments = ["index", "--db", db, many]
        DispatchQueue.global().async(group: indexing) { run = try? runCLI(arguments) }
        var reads = 0
        while indexing.wait(timeout: .now()) == .timedOut {
            // Every capture in the table has all its frames: 12 for each copy.
            let out = try runCLI([
                "query", "--db", db, "--format", "csv",
                "SELECT count(*) FROM captures c WHERE c.path LIKE '%/many/%' AND (SELECT count(*) FROM frames f WHERE f.capture = c.id) != 12",
            ])
            XCTAssertEqual(out.status, 0, out.stderr)
            XCTAssertEqual(out.stdout, "count(*)\n0\n")
            reads += 1
        }
        XCTAssertEqual(run?.status, 0, run?.stderr ?? "")
        XCTAssertGreaterThan(reads, 0)
        XCTAssertEqual(try csv("SELECT count(*) FROM captures"), "count(*)\n303\n")
    }
}
