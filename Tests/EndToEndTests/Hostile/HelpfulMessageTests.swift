import BTLensTestSupport
import Foundation
import XCTest

/// What btlens says when it refuses: why a file cannot be read, the size an oversized file has, the
/// part of a `--decode-as` that is wrong, the usage of the subcommand that was given. Each run is
/// bounded: 30 s, 1 GiB of address space.
final class HelpfulMessageTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path
    static let session = captures + "/ble_a5_session.btsnoop"

    func run(_ arguments: [String]) throws -> CLIRun {
        try runCLI(arguments, timeout: 30, memoryLimit: 1 << 30)
    }

    /// A folder removed when the test ends.
    func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "btlens-messages-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testAnUnreadableFileSaysWhy() throws {
        let folder = try temporaryFolder()
        let files = FileManager.default
        try files.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: folder + "/gone.btsnoop")
        try files.createSymbolicLink(atPath: folder + "/a", withDestinationPath: folder + "/b")
        try files.createSymbolicLink(atPath: folder + "/b", withDestinationPath: folder + "/a")
        let cases: [([String], String)] = [
            (
                ["timeline", folder + "/dangling"],
                "cannot open \(folder)/dangling: a dangling symbolic link to \(folder)/gone.btsnoop"
            ),
            (["stats", folder + "/a"], "cannot open \(folder)/a: too many levels of symbolic links (a loop?)"),
            (["convert", folder, "-o", folder + "/x.pcap"], "cannot open \(folder): a folder, not a file"),
        ]
        for (arguments, message) in cases {
            let run = try run(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stderr, "btlens: \(message)\n", "\(arguments)")
        }
        // Keys and definitions are opened with the same words.
        let keys = try run(["timeline", Self.session, "--keys", folder + "/dangling"])
        XCTAssertEqual(keys.status, 2)
        XCTAssertTrue(
            keys.stderr.hasPrefix(
                "btlens: Error: --keys \(folder)/dangling: cannot open: a dangling symbolic link to \(folder)/gone.btsnoop\n"
            ), keys.stderr)
        let log = try run(["timeline", Self.session, "--app-log", folder])
        XCTAssertEqual(log.status, 2)
        XCTAssertTrue(
            log.stderr.hasPrefix("btlens: Error: \(folder): cannot be read: a folder, not a file\n"), log.stderr)
        try files.createSymbolicLink(atPath: folder + "/d.yaml", withDestinationPath: folder + "/gone.yaml")
        let given = try run(["timeline", Self.session, "--dissectors", folder + "/d.yaml"])
        XCTAssertEqual(given.status, 2)
        XCTAssertEqual(given.stderr, "btlens: \(folder)/d.yaml: a dangling symbolic link to \(folder)/gone.yaml\n")
        let definitions = try run(["dissectors", "check", folder + "/d.yaml"])
        XCTAssertEqual(definitions.status, 1)
        XCTAssertTrue(
            definitions.stdout.contains("d.yaml:-: a dangling symbolic link to \(folder)/gone.yaml"),
            definitions.stdout + definitions.stderr)
    }

    /// The size said is the file's, not the limit's one byte more that was read.
    func testAnOversizedFileSaysItsSize() throws {
        let folder = try temporaryFolder()
        let big = Data(repeating: 0x23, count: 3 << 20)
        try big.write(to: URL(fileURLWithPath: folder + "/keys.txt"))
        try big.write(to: URL(fileURLWithPath: folder + "/big.yaml"))
        let keys = try run(["timeline", Self.session, "--keys", folder + "/keys.txt"])
        XCTAssertEqual(keys.status, 2)
        XCTAssertTrue(
            keys.stderr.hasPrefix(
                "btlens: Error: --keys \(folder)/keys.txt: expected a key file of at most 1048576 bytes, found 3145728\n"
            ), keys.stderr)
        let definition = try run(["timeline", Self.session, "--dissectors", folder + "/big.yaml"])
        XCTAssertEqual(definition.status, 2)
        XCTAssertEqual(
            definition.stderr,
            "btlens: \(folder)/big.yaml:-: file of 3145728 bytes; definitions are limited to 1048576\n"
        )
    }

    /// Each refusal names the part that is wrong and what it must be.
    func testADecodeAsSaysWhichPartIsWrong() throws {
        let cases: [(String, String)] = [
            ("rfcomm:31=iap2", "rfcomm:31: an RFCOMM server channel is a number from 1 to 30"),
            ("rfcomm:0=iap2", "rfcomm:0: an RFCOMM server channel is a number from 1 to 30"),
            ("rfcomm:=iap2", "nothing after 'rfcomm:': an RFCOMM server channel is a number from 1 to 30"),
            ("0x0000=rfcomm", "0x0000: an L2CAP channel (CID) is from 0x0001 to 0xFFFF (0x0000 is reserved)"),
            ("psm:0=acme", "psm:0: a PSM is from 0x0001 to 0xFFFF (0x0000 is reserved)"),
            ("att:0x0000=acme", "att:0x0000: an ATT handle is from 0x0001 to 0xFFFF (0x0000 is reserved)"),
            (
                "l2cap:0x0004=acme",
                "l2cap:0x0004: a dynamic L2CAP channel is from 0x0040 to 0xFFFF (0x0004 is a fixed channel)"
            ),
            ("att:zz=acme", "att:zz: an ATT handle is a hex number from 0x0001 to 0xFFFF"),
            ("0x0041=", "nothing after '=': name what to decode 0x0041 as"),
            (
                "=rfcomm",
                "nothing before '=': name the channel (a CID as 0x0041, rfcomm:N, att:HANDLE, psm:PSM or l2cap:CID)"
            ),
            ("att:=acme", "nothing after 'att:': an ATT handle is a hex number from 0x0001 to 0xFFFF"),
            ("att:0x0025=a/b/c", "'a/b/c': expected DISSECTOR or DISSECTOR/MESSAGE"),
            ("foo:3=acme", "'foo:3': expected CID, rfcomm:N, att:HANDLE, psm:PSM or l2cap:CID"),
            (
                "0x0041",
                "expected one '=' between the channel and what to decode it as (0x0041=rfcomm, rfcomm:3=iap2, att:0x0025=DISSECTOR, psm:0x0080=DISSECTOR, l2cap:0x0041=DISSECTOR)"
            ),
        ]
        for (value, reason) in cases {
            let run = try run(["timeline", Self.session, "--decode-as", value])
            XCTAssertEqual(run.status, 2, value)
            let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertEqual(
                first, "btlens: Error: The value '\(value)' is invalid for '--decode-as <decode-as>': \(reason)", value)
        }
        let named = try run(["timeline", Self.session, "--decode-as", "0x0041=acme"])
        XCTAssertTrue(named.stderr.contains("'acme': a channel is decoded as one of rfcomm|att|sdp|"), named.stderr)
        XCTAssertTrue(named.stderr.contains("(a dissector: l2cap:0x0041=acme)"), named.stderr)
    }

    /// A usage error found as the subcommand runs shows that subcommand's usage, not the root's.
    func testASubcommandsErrorShowsItsUsage() throws {
        let cases: [([String], String)] = [
            (["timeline", "--bogus", Self.session], "timeline"),
            (["timeline", Self.session, "--decode-as", "att:0x0025=nope", "--no-dissectors"], "timeline"),
            (["stats", Self.session, "--decode-as", "att:0x0025=nope", "--no-dissectors"], "stats"),
            (["report", Self.session, "-o", "-", "--from", "1.5"], "report"),
            (["dissectors", "export", "--wireshark", "-o", "-", "--bogus"], "dissectors export"),
        ]
        for (arguments, command) in cases {
            let run = try run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains("\nUsage: btlens \(command) "), "\(arguments): \(run.stderr)")
            XCTAssertTrue(
                run.stderr.hasSuffix("  See 'btlens \(command) --help' for more information.\n"),
                "\(arguments): \(run.stderr)")
        }
    }

    /// `--from 1.5` kept from record #2 while the report said #1: a record number is whole.
    func testAReportFromAFractionIsRefused() throws {
        let run = try run(["report", Self.session, "-o", "-", "--format", "txt", "--from", "1.5"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(
            run.stderr.hasPrefix(
                "btlens: Error: --from 1.5: a record number is whole, in digits; for seconds write 1.5s\n"),
            run.stderr)
        XCTAssertEqual(run.stdout, "")
        let timed = try self.run(["report", Self.session, "-o", "-", "--format", "txt", "--from", "1.5s"])
        XCTAssertEqual(timed.status, 0, timed.stderr)
        XCTAssertTrue(timed.stdout.contains("the events from 1.5 s (--from)"), timed.stdout)
    }

    /// `--from infs` was said to be after a `--to` never given, `--from 99999999999999999999999` was
    /// shown as #1e+23, `--from 1e3` was record #1000 and `--to 0` kept nothing: each is refused, as itself.
    func testAReportRangeOfNoRecordOrTimeIsRefused() throws {
        let cases: [([String], String)] = [
            (["--from", "infs"], "--from infs: seconds are a finite number (12.5s)"),
            (["--to", "nans"], "--to nans: seconds are a finite number (12.5s)"),
            (
                ["--from", "99999999999999999999999"],
                "--from 99999999999999999999999: a record number is at most 9007199254740992"
            ),
            (["--from", "1e3"], "--from 1e3: a record number is whole, in digits; for seconds write 1e3s"),
            (["--from", "0x10"], "--from 0x10: expected a record number (123) or seconds (12.5s)"),
            (["--to", "0"], "--to 0: records are numbered from 1 (#1 is the first)"),
            (["--from", "00"], "--from 00: records are numbered from 1 (#1 is the first)"),
        ]
        for (range, message) in cases {
            let run = try run(["report", Self.session, "-o", "-", "--format", "txt"] + range)
            XCTAssertEqual(run.status, 2, "\(range)")
            XCTAssertTrue(run.stderr.hasPrefix("btlens: Error: \(message)\n"), "\(range): \(run.stderr)")
            XCTAssertEqual(run.stdout, "", "\(range)")
        }
    }
}
