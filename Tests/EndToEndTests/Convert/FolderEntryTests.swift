import Foundation
import XCTest

/// A folder given to `stats` or `report` may hold things that are not captures: a FIFO must not
/// block the run, and a dangling link must be named, not skipped.
final class FolderEntryTests: XCTestCase {
    func testAFIFOAndADanglingLinkAreNamedAndTheRunEnds() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-folder-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let captures = JSONContractTests.root.appendingPathComponent("Captures")
        try FileManager.default.copyItem(
            at: captures.appendingPathComponent("ble_a5_session.btsnoop"),
            to: folder.appendingPathComponent("a.btsnoop"))
        XCTAssertEqual(mkfifo(folder.appendingPathComponent("b.fifo").path, 0o600), 0)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("c.btsnoop").path,
            withDestinationPath: "/nonexistent/capture.btsnoop")
        for command in ["stats", "report"] {
            let arguments =
                command == "stats"
                ? ["stats", folder.path]
                : ["report", folder.path, "-o", folder.appendingPathComponent("out").path, "--format", "txt"]
            let started = Date()
            let run = try runCLI(arguments, timeout: 20)
            XCTAssertLessThan(Date().timeIntervalSince(started), 20, "\(command) ended")
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("2 of 3 files could not be read"), run.stderr)
            XCTAssertTrue(run.stderr.contains("b.fifo: a FIFO, not a regular file"), run.stderr)
            XCTAssertTrue(
                run.stderr.contains("c.btsnoop: a dangling symbolic link to /nonexistent/capture.btsnoop"), run.stderr)
        }
    }
}

/// `report --from/--to` asks for a range: the text reports show its rows, not only the excerpts
/// around diagnostics (a range without diagnostics showed none).
final class ReportRangeTests: XCTestCase {
    func testTheRangeIsShownInTextReports() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-range-\(getpid())")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let capture = JSONContractTests.root.appendingPathComponent("Captures/ble_a5_session.btsnoop").path
        for format in ["md", "txt"] {
            let file = out.appendingPathComponent("r.\(format)").path
            let run = try runCLI(["report", capture, "--from", "23", "--to", "24", "-o", file])
            XCTAssertEqual(run.status, 0, run.stderr)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            XCTAssertTrue(
                text.contains(
                    "#23      0.027500 < 0x0040 ATT   Read Blob Request 0x0008 (Model Number String) offset=63"), text)
            XCTAssertFalse(text.split(separator: "\n").contains { $0.hasPrefix("#25 ") }, text)
        }
        // The largest record bound is said as given (1e19 was converted, which trapped; it is refused now).
        let file = out.appendingPathComponent("far.md").path
        let far = try runCLI(["report", capture, "--from", "2", "--to", "9007199254740992", "-o", file])
        XCTAssertEqual(far.status, 0, far.stderr)
        XCTAssertTrue(far.stdout.contains("records #2 to #9007199254740992 (--from/--to)"), far.stdout)
    }
}

/// An empty folder is no success, and a folder's reports never make a folder named like a file.
final class EmptyFolderTests: XCTestCase {
    func testAnEmptyFolderExitsOneAndAFileNamedOutputIsRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-empty-\(getpid())")
        let empty = root.appendingPathComponent("empty")
        let one = root.appendingPathComponent("one")
        for f in [empty, one] { try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true) }
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        for arguments in [
            ["stats", empty.path], ["report", empty.path, "-o", root.appendingPathComponent("out").path],
        ] {
            let run = try runCLI(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stderr, "btlens: \(empty.path): the folder holds no files to read\n")
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path), "no output folder made")
        try FileManager.default.copyItem(
            at: JSONContractTests.root.appendingPathComponent("Captures/ble_a5_session.btsnoop"),
            to: one.appendingPathComponent("a.btsnoop"))
        let html = root.appendingPathComponent("x.html").path
        let run = try runCLI(["report", one.path, "-o", html])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("its reports go into a folder"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: html), "no folder named x.html")
    }
}
