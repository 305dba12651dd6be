import BTLensCapture
import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest
import ZIPFoundation

final class BugreportArchiveTests: XCTestCase {
    func zip(_ members: [(String, [UInt8])]) throws -> String {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, bytes) in members {
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate
            ) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-test-\(UUID().uuidString).zip")
        try XCTUnwrap(archive.data).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func count(_ reader: inout any CaptureReader) throws -> Int {
        var n = 0
        while let item = try reader.next() { if case .record = item { n += 1 } }
        return n
    }

    func testTheMainSnoopLogIsDecodedByDefaultAndOthersCanBePicked() throws {
        let main = SampleCaptures.session()
        let last = SampleCaptures.faults()
        let summary = BTSnoozWriter(version: 1, lastTimestamp: 1)
        let path = try zip([
            ("bugreport-phone-2026-11-22.txt", Array(summary.text().utf8)),
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", last.bytes),
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", main.bytes),
            ("FS/data/misc/other.txt", Array("x".utf8)),
        ])
        var reader = try CaptureFormat.open(path: path)
        XCTAssertEqual(try count(&reader), main.lastRecord)
        XCTAssertEqual(
            reader.info.notes,
            [
                "bugreport member FS/data/misc/bluetooth/logs/btsnoop_hci.log; also inside: FS/data/misc/bluetooth/logs/btsnoop_hci.log.last, bugreport-phone-2026-11-22.txt"
            ])
        var other = try CaptureFormat.open(path: path, member: "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last")
        XCTAssertEqual(try count(&other), last.lastRecord)
        var text = try CaptureFormat.open(path: path, member: "bugreport-phone-2026-11-22.txt")
        XCTAssertEqual(text.info.format, "btsnooz")
        XCTAssertEqual(try count(&text), 0)
        XCTAssertThrowsError(try CaptureFormat.open(path: path, member: "nope")) {
            XCTAssertTrue("\($0)".contains("no member nope"), "\($0)")
        }
    }

    func testAZipWithoutAnySnoopLogSaysSo() throws {
        let path = try zip([("FS/data/misc/other.txt", Array("x".utf8))])
        XCTAssertThrowsError(try CaptureFormat.open(path: path)) {
            XCTAssertEqual(
                "\($0)",
                "zip: no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt)"
            )
        }
    }

    /// A stored (uncompressed) zip written byte by byte (APPNOTE 4.3.7, 4.3.12, 4.3.16): ZIPFoundation
    /// rewrites its central directory on each added member, too slow for thousands of them.
    func storedZip(_ members: [(String, [UInt8])]) throws -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var out: [UInt8] = []
        var central: [UInt8] = []
        for (name, bytes) in members {
            let crc = Int(Data(bytes).crc32(checksum: 0))
            let offset = out.count
            let nameBytes = Array(name.utf8)
            let common =
                le(20, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0x21, 2) + le(crc, 4)
                + le(bytes.count, 4) + le(bytes.count, 4) + le(nameBytes.count, 2) + le(0, 2)
            out += le(0x0403_4b50, 4) + common + nameBytes + bytes
            central +=
                le(0x0201_4b50, 4) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4)
                + nameBytes
        }
        let start = out.count
        out +=
            central + le(0x0605_4b50, 4) + le(0, 4) + le(members.count, 2) + le(members.count, 2) + le(central.count, 4)
            + le(start, 4) + le(0, 2)
        return out
    }

    func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-test-\(UUID().uuidString).zip")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func testAMemberPastTheArchiveLimitIsNotExtractedAndTheMessageNamesIt() throws {
        let path = try zip([("FS/data/misc/bluetooth/logs/btsnoop_hci.log", [UInt8](repeating: 0, count: 4 << 20))])
        XCTAssertThrowsError(try CaptureFormat.open(path: path, archiveLimit: 1 << 20)) {
            XCTAssertEqual(
                "\($0)",
                "zip: member FS/data/misc/bluetooth/logs/btsnoop_hci.log inflates to more than 1048576 bytes (--limit archive-bytes=1048576): not read; raise the limit to read it"
            )
        }
    }

    func testAMemberThatInflatesPastTheSizeItDeclaresIsStoppedAtTheLimit() throws {
        var bytes = try Array(
            Data(contentsOf: URL(fileURLWithPath: zip([("btsnoop_hci.log", [UInt8](repeating: 0, count: 4 << 20))]))))
        // Declares 100 bytes, in the local header (offset 22) and the central directory entry (offset 24).
        let central = try XCTUnwrap(
            (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual([0x50, 0x4b, 0x01, 0x02]) })
        for at in [22, central + 24] { bytes[at..<at + 4] = [100, 0, 0, 0] }
        XCTAssertThrowsError(try CaptureFormat.open(path: write(bytes), archiveLimit: 1 << 20)) {
            XCTAssertTrue("\($0)".contains("inflates to more than 1048576 bytes"), "\($0)")
        }
    }

    func testADamagedCentralDirectorySaysTheArchiveIsDamaged() throws {
        var bytes = try storedZip([("FS/data/misc/bluetooth/logs/btsnoop_hci.log", SampleCaptures.session().bytes)])
        let central = try XCTUnwrap(
            (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual([0x50, 0x4b, 0x01, 0x02]) })
        bytes[central + 3] = 0xff
        XCTAssertThrowsError(try CaptureFormat.open(path: write(bytes))) {
            XCTAssertEqual(
                "\($0)", "zip: the archive is damaged: its central directory lists 1 member, only 0 can be read")
        }
    }

    /// A zip whose end of central directory record is gone (the file cut short) is read by its
    /// local headers, and says so; one with no local header either says it in words.
    func testAZipCutBeforeItsEndRecordSaysSo() throws {
        let session = SampleCaptures.session()
        let bytes = try storedZip([("FS/data/misc/bluetooth/logs/btsnoop_hci.log", session.bytes)])
        var reader = try CaptureFormat.open(path: write(Array(bytes.dropLast(22))))
        XCTAssertEqual(try count(&reader), session.lastRecord)
        XCTAssertTrue(reader.info.notes.first?.contains("(damaged: no central directory, cut short?") ?? false)
        XCTAssertThrowsError(try CaptureFormat.open(path: write(Array(bytes.prefix(4)) + [0, 0]))) {
            XCTAssertEqual(
                "\($0)", "zip: the archive is damaged: it has no end of central directory record (is it cut short?)")
        }
    }

    /// A deflate stream that does not end within its member: ZIPFoundation read on past the member
    /// and looped for ever at the end of the file (Fuzz/regressions/bugreport/timeout-0dfed150…).
    /// The member is read as far as it inflates, and the note says what is wrong.
    func testAMemberWhoseDeflateStreamIsCutIsReadAsFarAsItGoes() throws {
        let capture = SampleCaptures.session()
        let deflated = BugreportZip.rawDeflate(capture.bytes)
        let cut = Array(deflated.prefix(deflated.count / 2))
        let bytes = BugreportZip.single(
            "btsnoop_hci.log", data: cut, method: 8, crc: BugreportZip.crc32(capture.bytes),
            size: capture.bytes.count)
        var reader = try CaptureFormat.open(path: write(bytes))
        let records = try count(&reader)
        XCTAssertTrue(records > 0 && records < capture.lastRecord, "\(records) records")
        let note = try XCTUnwrap(reader.info.notes.first)
        XCTAssertTrue(
            note.hasPrefix(
                "bugreport member btsnoop_hci.log (damaged: its \(cut.count) bytes of deflate data end before the stream does, after "
            ), note)
    }

    /// A member from which nothing inflates is said to be damaged, and why, not to be an empty file.
    func testAMemberFromWhichNothingInflatesIsSaidToBeDamaged() throws {
        let capture = SampleCaptures.session().bytes
        let deflated = BugreportZip.rawDeflate(capture)
        let cases: [([UInt8], String)] = [
            (
                [UInt8](repeating: 0xff, count: 200),
                "its deflate data is damaged at byte 1 of 200 (0 bytes inflated): invalid block type"
            ),
            ([], "its 0 bytes of deflate data end before the stream does, after 0 bytes"),
            (Array(deflated.prefix(50)), "its 50 bytes of deflate data end before the stream does, after "),
        ]
        for (data, why) in cases {
            let bytes = BugreportZip.single(
                "btsnoop_hci.log", data: data, method: 8, crc: BugreportZip.crc32(capture), size: capture.count)
            XCTAssertThrowsError(try CaptureFormat.open(path: write(bytes))) {
                XCTAssertTrue("\($0)".hasPrefix("zip: member btsnoop_hci.log is damaged: \(why)"), "\($0)")
                XCTAssertFalse("\($0)".contains("the file is empty"), "\($0)")
            }
        }
    }

    func testAMemberWhoseChecksumDisagreesIsReadAndSaidToBeDamaged() throws {
        let capture = SampleCaptures.session()
        let crc = BugreportZip.crc32(capture.bytes)
        let bytes = BugreportZip.single(
            "btsnoop_hci.log", data: capture.bytes, method: 0, crc: crc ^ 1, size: capture.bytes.count)
        var reader = try CaptureFormat.open(path: write(bytes))
        XCTAssertEqual(try count(&reader), capture.lastRecord)
        XCTAssertEqual(
            reader.info.notes,
            [
                "bugreport member btsnoop_hci.log (damaged: its CRC-32 is \(Hex.value(crc, width: 8)), the archive says \(Hex.value(crc ^ 1, width: 8)); read as far as it goes)"
            ])
    }

    func testThousandsOfMembersAreListedByAFewNamesAndACount() throws {
        let main = SampleCaptures.session()
        let logs = "FS/data/misc/bluetooth/logs/"
        let others = (0..<9_999).map { ("\(logs)btsnoop_hci.log.\(10_000 + $0)", [UInt8]()) }
        let path = try write(storedZip([("\(logs)btsnoop_hci.log", main.bytes)] + others))
        var reader = try CaptureFormat.open(path: path)
        XCTAssertEqual(try count(&reader), main.lastRecord)
        let shown = (10_000..<10_005).map { "\(logs)btsnoop_hci.log.\($0)" }.joined(separator: ", ")
        XCTAssertEqual(
            reader.info.notes, ["bugreport member \(logs)btsnoop_hci.log; also inside: \(shown) and 9994 more"])
        XCTAssertThrowsError(try CaptureFormat.open(path: path, member: "nope")) {
            XCTAssertTrue("\($0)".hasSuffix("btsnoop_hci.log.10003 and 9995 more)"), "\($0)")
        }
    }

    /// libpcap reads the member through the extracted file's descriptor: the file has no name.
    func testAPcapngMemberIsReadThroughLibpcap() throws {
        let main = SampleCaptures.session()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-test-\(UUID().uuidString).pcapng")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        do {
            var source = try CaptureFormat.open(MemorySource(main.bytes))
            let writer = try CaptureWriter(path: url.path, format: .pcapng, monitor: false)
            while let item = try source.next() { if case .record(let r) = item { writer.write(r) } }
        }
        let path = try zip([("FS/data/misc/bluetooth/logs/btsnoop_hci.log", Array(try Data(contentsOf: url)))])
        var reader = try CaptureFormat.open(path: path)
        XCTAssertEqual(reader.info.format, "pcapng")
        XCTAssertEqual(try count(&reader), main.lastRecord)
    }
}
