import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// What `index`, `query` and `export` refuse or say instead of doing the wrong thing: a second
/// writer, a store that is not one, names that are no files, paths that are gone.
final class StoreRefusalTests: XCTestCase {
    private var folder = ""
    private var captures: String { folder + "/captures" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-refusal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("Captures/ble_a5_faults.btsnoop").path,
            toPath: captures + "/a.btsnoop")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func expect(_ arguments: [String], status: Int32, saying message: String) throws {
        let run = try runCLI(arguments)
        XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)")
        if !message.isEmpty { XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)") }
    }

    func testASecondIndexIntoTheSameStoreIsRefusedWhileTheFirstWrites() throws {
        let db = folder + "/s.sqlite"
        let fd = OS.open(db + ".lock", O_RDWR | O_CREAT, 0o644)
        XCTAssertEqual(OS.lockExclusively(fd), 0, "the test holds the lock as an index would")
        try expect(["index", "--db", db, captures], status: 1, saying: "another btlens index is writing this store")
        OS.close(fd)
        try expect(["index", "--db", db, captures], status: 0, saying: "")
    }

    func testWhatIsNoStoreOrNoFolderIsRefused() throws {
        for (arguments, message) in [
            (["index", "--db", "", captures], "--db needs a file name"),
            (["index", "--db", folder, captures], "is a folder: --db names the store's file"),
            (["export", "--dataset", "", captures], "--dataset needs a folder name"),
            (
                ["export", "--dataset", captures + "/a.btsnoop/x", captures],
                "\(captures)/a.btsnoop is a file, not a folder"
            ),
        ] {
            try expect(arguments, status: 1, saying: message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/schema.json"), "nothing written at the root")
    }

    func testAForeignDatabaseIsNotAddedTo() throws {
        let db = folder + "/foreign.sqlite"
        let made = try runCLI(["index", "--db", db, captures])
        XCTAssertEqual(made.status, 0, made.stderr)
        // Its migrations table gone, it is no longer one btlens made.
        let sql = "DROP TABLE grdb_migrations"
        XCTAssertNotEqual(try runCLI(["query", "--db", db, sql]).status, 0, "query is read only")
        try runSQLite(db, sql)
        try expect(["index", "--db", db, captures], status: 1, saying: "is an SQLite database btlens did not make")
    }

    func testAFileThatCouldNotBeReadIsTriedAgain() throws {
        let db = folder + "/s.sqlite"
        try Data("btsnoop\0\0\0".utf8).write(to: URL(fileURLWithPath: captures + "/cut.btsnoop"))
        for _ in 0..<2 {
            let run = try runCLI(["index", "--db", db, captures])
            XCTAssertEqual(run.status, 1)
            XCTAssertTrue(run.stdout.contains("1 unreadable"), run.stdout)
            XCTAssertTrue(run.stderr.contains("cut.btsnoop: btsnoop file header is cut short"), run.stderr)
        }
    }

    func testAMissingPathIsSaidItsCapturesPrunedAndTheRestIndexed() throws {
        let db = folder + "/s.sqlite"
        let gone = folder + "/gone"
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: captures + "/a.btsnoop", toPath: gone + "/b.btsnoop")
        XCTAssertEqual(try runCLI(["index", "--db", db, captures, gone]).status, 0)
        try FileManager.default.removeItem(atPath: gone)
        let run = try runCLI(["index", "--db", db, captures, gone])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("\(gone): no such file or folder"), run.stderr)
        XCTAssertTrue(run.stdout.contains("0 indexed (0 frames, 0 diagnostics), 1 unchanged, 1 unreadable, 1 pruned"))
    }

    func testALinkToAFolderNamedIsWalkedUnderItsName() throws {
        let link = folder + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: captures)
        let db = folder + "/s.sqlite"
        XCTAssertEqual(try runCLI(["index", "--db", db, link]).status, 0)
        let paths = try runCLI(["query", "--db", db, "SELECT path FROM captures", "--format", "csv"])
        XCTAssertEqual(paths.stdout, "path\n\(link)/a.btsnoop\n")
    }

    func testQueryReadsItsStatementFromStandardInputAndNamesEachColumnOnce() throws {
        let db = folder + "/s.sqlite"
        XCTAssertEqual(try runCLI(["index", "--db", db, captures]).status, 0)
        let sql = folder + "/q.sql"
        try Data("-- a comment first\nSELECT count(*) AS n, 1 AS n FROM captures\n".utf8).write(
            to: URL(fileURLWithPath: sql))
        let run = try runCLI(["query", "--db", db, "-", "--format", "json"], stdin: sql)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "[\n{\"n\":1,\"n_2\":1}\n]\n")
    }

    func testAppLogOptionsAreCheckedBeforeAnyCaptureIsRead() throws {
        let db = folder + "/s.sqlite"
        for (options, message) in [
            (["--app-log-beside", ""], "--app-log-beside '': give the end of a log's name"),
            (["--app-log-beside", ".a", "--app-log-beside", ".a"], "--app-log-beside .a: the same suffix given twice"),
            (
                ["--app-log-beside", ".app.log", "--app-log-filter", "["],
                "--app-log-filter [: not a regular expression"
            ),
            (["--app-log-filter", "Tag"], "need --app-log-beside"),
        ] {
            try expect(["index", "--db", db, captures] + options, status: 2, saying: message)
            try expect(["export", "--dataset", folder + "/ds", captures] + options, status: 2, saying: message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "refused before the store is made")
    }

    /// A FIFO named like a log is no log: reading it would block.
    func testAFIFONamedLikeALogIsLeftAlone() throws {
        XCTAssertEqual(mkfifo(captures + "/a.app.log", 0o644), 0)
        let run = try runCLI(
            ["index", "--db", folder + "/s.sqlite", captures, "--app-log-beside", ".app.log"], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("1 indexed"), run.stdout)
    }

    private func runSQLite(_ db: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", db, sql,
        ]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }
}
