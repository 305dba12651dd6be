import BTLensTestSupport
import Foundation
import XCTest

/// Bugreport zips that lie in their structures, each run through every command that reads a
/// capture, as a separate process with a time and memory limit: none may reach a trap (a 1,199-byte
/// zip whose ZIP64 directory offset was 2^63 killed btlens with SIGILL inside ZIPFoundation), and
/// each says what is wrong in the same words whatever the command.
final class BugreportZipHostileTests: XCTestCase {
    static let log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    static let memoryLimit = 1 << 30

    func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func write(_ bytes: [UInt8], in folder: String) throws -> String {
        let path = folder + "/bugreport.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every command that reads a capture, over `path` (`extra` after it), writing into `folder`.
    func commands(_ path: String, in folder: String, _ extra: [String] = []) -> [(String, [String])] {
        [
            ("timeline", ["timeline", path] + extra),
            ("stats", ["stats", path] + extra),
            ("report", ["report", path, "-o", folder + "/r.html"] + extra),
            ("convert", ["convert", path, "-o", folder + "/c.pcapng"] + extra),
            ("diff", ["diff", path, path] + extra),
            ("index", ["index", "--db", folder + "/s.sqlite", path]),
            ("export", ["export", "--dataset", folder + "/dataset", path]),
        ]
    }

    /// Each command exits 1 and says `message` on stderr, nothing on stdout.
    func assertRefused(_ bytes: [UInt8], _ message: String, _ extra: [String] = []) throws {
        let dir = try folder()
        let path = try write(bytes, in: dir)
        for (name, arguments) in commands(path, in: dir, extra) {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 1, "\(name): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(name): \(run.stderr)")
        }
    }

    func testAZip64DirectoryOffsetOf2To63IsDamagedNotATrap() throws {
        let zip = BugreportZip.raw(
            [.init(Self.log, stored: SampleCaptures.session().bytes)], zip64DirectoryOffset: 1 << 63)
        let central = 46 + Self.log.utf8.count
        try assertRefused(
            zip,
            "zip: the archive is damaged: its central directory (\(central) bytes at offset 9223372036854775808) runs past the end of the archive (\(zip.count) bytes)"
        )
    }

    func testADirectoryOffsetPastTheFileIsDamagedNotNoSnoopLog() throws {
        var zip = BugreportZip.raw([.init(Self.log, stored: SampleCaptures.session().bytes)])
        // The end record's directory offset (its last 6 bytes are the offset and the comment length).
        zip[zip.count - 6..<zip.count - 2] = [0xf0, 0xff, 0xff, 0x7f]
        try assertRefused(
            zip,
            "zip: the archive is damaged: its central directory (\(46 + Self.log.utf8.count) bytes at offset 2147483632) runs past the end of the archive (\(zip.count) bytes)"
        )
    }

    func testAMemberHeaderOffsetPastTheFileIsDamaged() throws {
        let capture = SampleCaptures.session().bytes
        var zip = BugreportZip.raw([.init(Self.log, stored: capture)])
        // The central directory header's local header offset (APPNOTE.TXT 4.3.12: at 42).
        let central = 30 + Self.log.utf8.count + capture.count
        zip[central + 42..<central + 46] = [0xfe, 0xff, 0xff, 0xff]
        try assertRefused(
            zip,
            "zip: the archive is damaged: member \(Self.log)'s local header (30 bytes at offset 4294967294) runs past the end of the archive (\(zip.count) bytes)"
        )
    }

    func testAnEncryptedMemberSaysSo() throws {
        let capture = SampleCaptures.session().bytes
        let zip = BugreportZip.raw([
            .init(
                name: Array(Self.log.utf8), data: capture, flags: 1, crc: BugreportZip.crc32(capture),
                size: UInt32(capture.count))
        ])
        try assertRefused(
            zip, "zip: member \(Self.log) is encrypted: btlens does not decrypt zips; unzip it with its password first")
    }

    /// Method 99 is WinZip AES (AE-x): encrypted, even when the encryption bit is not set.
    func testAnAESMemberSaysItIsEncrypted() throws {
        let capture = SampleCaptures.session().bytes
        let zip = BugreportZip.raw([
            .init(
                name: Array(Self.log.utf8), data: capture, method: 99, crc: BugreportZip.crc32(capture),
                size: UInt32(capture.count))
        ])
        let run = try runCLI(["stats", try write(zip, in: try folder())], timeout: 30, memoryLimit: Self.memoryLimit)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains(
                "zip: member \(Self.log) is AES-encrypted (WinZip AE-x, method 99): btlens does not decrypt zips; unzip it with its password first"
            ), run.stderr)
    }

    func testABugreportZippedAgainSaysToUnzipIt() throws {
        let inner = BugreportZip.raw([.init(Self.log, stored: SampleCaptures.session().bytes)])
        let zip = BugreportZip.raw([.init("bugreport-panther.zip", stored: inner)])
        try assertRefused(
            zip,
            "zip: no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt); it holds zips (bugreport-panther.zip): unzip it and read the zip inside"
        )
        let dir = try folder()
        let run = try runCLI(
            ["stats", try write(zip, in: dir), "--member", "bugreport-panther.zip"], timeout: 30,
            memoryLimit: Self.memoryLimit)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains(
                "zip: member bugreport-panther.zip is itself a zip: unzip the archive and read the zip inside"),
            run.stderr)
    }

    /// 100,001 members: the end record's 16-bit count says 34,465.
    func testMoreMembersThanBtlensListsAreRefusedNotMiscounted() throws {
        let members =
            [BugreportZip.RawMember(Self.log, stored: SampleCaptures.session().bytes)]
            + (1...100_000).map { BugreportZip.RawMember("m\($0)", stored: []) }
        try assertRefused(
            BugreportZip.raw(members), "zip: it lists more than 100000 members; btlens reads at most 100000")
    }

    /// A name that is not UTF-8 is shown with its bytes as `\xNN`, and read.
    func testANameThatIsNotUTF8IsShownEscapedAndRead() throws {
        let name = Array(Self.log.utf8) + [0xff, 0xfe]
        let capture = SampleCaptures.session()
        let zip = BugreportZip.raw([
            .init(
                name: name, data: capture.bytes, crc: BugreportZip.crc32(capture.bytes),
                size: UInt32(capture.bytes.count))
        ])
        let dir = try folder()
        let path = try write(zip, in: dir)
        for arguments in [["stats", path], ["stats", path, "--member", Self.log + "\\xff\\xfe"]] {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("bugreport member \(Self.log)\\xff\\xfe"), run.stdout)
            XCTAssertTrue(run.stdout.contains("Records:     \(capture.lastRecord) ("), run.stdout)
        }
    }

    /// A member not in the archive: every member's name is listed, a control character as `\xNN`,
    /// and that name is given to `--member` as it is shown.
    func testAMissingMemberListsEveryNameEscaped() throws {
        let capture = SampleCaptures.session().bytes
        let zip = BugreportZip.raw([.init("x\u{1b}[2Jy", stored: capture)])
        let path = try write(zip, in: try folder())
        let missing = try runCLI(["stats", path, "--member", "x"], timeout: 30, memoryLimit: Self.memoryLimit)
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("zip: no member x (members: x\\x1b[2Jy)"), missing.stderr)
        let found = try runCLI(
            ["stats", path, "--member", "x\\x1b[2Jy"], timeout: 30, memoryLimit: Self.memoryLimit)
        XCTAssertEqual(found.status, 0, found.stderr)
    }

    /// A zip on standard input cannot be read by any command: the advice is to save it to a file,
    /// which then reads.
    func testAZipOnStandardInputSaysToSaveItToAFile() throws {
        let zip = BugreportZip.raw([.init(Self.log, stored: SampleCaptures.session().bytes)])
        let dir = try folder()
        let path = try write(zip, in: dir)
        let advice =
            "a bugreport .zip is read whole, from a file: it cannot be followed, nor read from standard input or a pipe (save it to a file and give its path to timeline, stats, report or convert)"
        for arguments in [["stats", "-"], ["convert", "-", "-o", dir + "/c.pcap"], ["timeline", "-"]] {
            let run = try runCLI(arguments, stdin: path, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(advice), run.stderr)
        }
        for arguments in [["stats", path], ["convert", path, "-o", dir + "/c.pcap"], ["timeline", path]] {
            XCTAssertEqual(try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit).status, 0, "\(arguments)")
        }
    }

    /// The damaged member is read as far as it goes, and every command says what is wrong with it:
    /// on its output, in the report, or (`index`, `export`) in the rows it writes.
    func assertSaidByEveryCommand(_ zip: [UInt8], _ message: String) throws {
        let dir = try folder()
        let path = try write(zip, in: dir)
        for (name, arguments) in commands(path, in: dir) {
            let run = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            var said = run.stdout + run.stderr
            switch name {
            case "report": said = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
            case "index":
                said = try runCLI(
                    ["query", "--db", dir + "/s.sqlite", "SELECT id, message FROM diagnostics"], timeout: 30
                ).stdout
                XCTAssertTrue(said.contains("capture.archive.damaged"), said)
            case "export":
                let rows = dir + "/dataset/diagnostics/"
                said = try FileManager.default.contentsOfDirectory(atPath: rows).map {
                    try String(contentsOfFile: rows + $0, encoding: .utf8)
                }.joined()
            default: break
            }
            XCTAssertTrue(said.contains(message), "\(name): \(said)")
        }
    }

    func testABadCRCIsSaidByEveryCommand() throws {
        let capture = SampleCaptures.session().bytes
        let crc = BugreportZip.crc32(capture)
        let zip = BugreportZip.single(Self.log, data: capture, method: 0, crc: crc ^ 1, size: capture.count)
        try assertSaidByEveryCommand(
            zip, "its CRC-32 is 0x\(String(format: "%08x", crc)), the archive says 0x\(String(format: "%08x", crc ^ 1))"
        )
    }

    /// A member that declares 1 GiB and holds a few KB is read, not refused past `archive-bytes`;
    /// one that declares less than it holds is counted as it inflates (`ArchiveTests`).
    func testADeclaredSizeThatLiesIsSaidAndTheBytesAreRead() throws {
        let capture = SampleCaptures.session().bytes
        let zip = BugreportZip.raw([
            .init(name: Array(Self.log.utf8), data: capture, crc: BugreportZip.crc32(capture), size: 1 << 30)
        ])
        try assertSaidByEveryCommand(zip, "it inflates to \(capture.count) bytes, the archive says 1073741824")
    }
}
