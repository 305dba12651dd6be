import BTLensCapture
import BTLensTestSupport
import Foundation
import XCTest

/// The central directory as btlens reads it (`ZipDirectory`): counts, ZIP64, names.
final class ZipDirectoryTests: XCTestCase {
    static let log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"

    func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-test-\(UUID().uuidString).zip")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func records(_ path: String) throws -> Int {
        var reader = try CaptureFormat.open(path: path)
        var n = 0
        while let item = try reader.next() { if case .record = item { n += 1 } }
        return n
    }

    /// 65,538 members: the end record's 16-bit count says 2, and the entries counted agree with it.
    func testACountWrappedAt16BitsIsReadByCountingTheEntries() throws {
        let session = SampleCaptures.session()
        let members =
            (0...65_536).map { BugreportZip.RawMember("m\($0)", stored: []) }
            + [BugreportZip.RawMember(Self.log, stored: session.bytes)]
        XCTAssertEqual(try records(write(BugreportZip.raw(members))), session.lastRecord)
    }

    func testACountTheEntriesDisagreeWithIsDamaged() throws {
        let zip = BugreportZip.raw([.init(Self.log, stored: SampleCaptures.session().bytes)], count: 5)
        XCTAssertThrowsError(try CaptureFormat.open(path: write(zip))) {
            XCTAssertEqual(
                "\($0)", "zip: the archive is damaged: its central directory holds 1 member, its end record says 5")
        }
    }

    func testAZip64EndRecordIsFollowed() throws {
        let session = SampleCaptures.session()
        let start = UInt64(30 + Self.log.utf8.count + session.bytes.count)
        let zip = BugreportZip.raw([.init(Self.log, stored: session.bytes)], zip64DirectoryOffset: start)
        XCTAssertEqual(try records(write(zip)), session.lastRecord)
    }

    /// A central directory past 16 MiB is past a bound of btlens', not damage.
    func testACentralDirectoryPastTheBoundIsSaidAsTheBound() throws {
        var zip = BugreportZip.raw([.init(Self.log, stored: [UInt8](repeating: 0, count: 17 << 20))])
        // The end record's directory size and offset: the whole file before it, from 0.
        let length = UInt32(zip.count - 22)
        zip[zip.count - 10..<zip.count - 2] =
            (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) } + [0, 0, 0, 0]
        XCTAssertThrowsError(try CaptureFormat.open(path: write(zip))) {
            XCTAssertEqual(
                "\($0)", "zip: its central directory is \(length) bytes; btlens reads at most 16 MiB (16777216 bytes)")
        }
    }

    /// A zip that is its end record alone is said to be an empty zip, not an unknown capture.
    func testAnEmptyZipIsSaidToBeOne() throws {
        XCTAssertThrowsError(try CaptureFormat.open(path: write(BugreportZip.raw([])))) {
            XCTAssertEqual("\($0)", "zip: it is an empty zip: it holds no members")
        }
    }

    /// Two members by one name: the first is read, and the note says so.
    func testOfTwoMembersByOneNameTheFirstIsReadAndSaid() throws {
        let session = SampleCaptures.session()
        let zip = BugreportZip.raw([.init(Self.log, stored: session.bytes), .init(Self.log, stored: [1, 2, 3])])
        var reader = try CaptureFormat.open(path: write(zip))
        XCTAssertEqual(reader.info.notes.first, "bugreport member \(Self.log) (the first of 2 members by that name)")
        var n = 0
        while let item = try reader.next() { if case .record = item { n += 1 } }
        XCTAssertEqual(n, session.lastRecord)
    }
}
