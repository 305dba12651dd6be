import BTLensCapture
import BTLensTestSupport
import Foundation
import XCTest

final class ZipMemberStreamTests: XCTestCase {
    private func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-member-\(UUID().uuidString).zip")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    private func readAll(_ stream: ZipMemberStream) throws -> (bytes: [UInt8], pieces: Int) {
        var bytes = [UInt8]()
        var pieces = 0
        while let piece = try stream.read() {
            XCTAssertLessThanOrEqual(piece.count, 1 << 16, "at most 64 KiB at a time")
            bytes += piece
            pieces += 1
        }
        XCTAssertNil(try stream.read(), "the end stays the end")
        return (bytes, pieces)
    }

    /// 300 KB of text that deflates well, so that both sides of inflate come in several pieces.
    private let text = Array((0..<6000).map { "line \($0): some logcat text a5 01 20\n" }.joined().utf8)

    func testStoredAndDeflatedMembersComeInPieces() throws {
        for deflate in [false, true] {
            let path = try write(BugreportZip.make([("a.txt", [1, 2, 3], deflate), ("dir/b.txt", text, deflate)]))
            let (bytes, pieces) = try readAll(ZipMemberStream(archive: path, member: "dir/b.txt", limit: 1 << 30))
            XCTAssertEqual(bytes, text, "deflate \(deflate)")
            XCTAssertGreaterThanOrEqual(pieces, text.count >> 16)
            XCTAssertEqual(try readAll(ZipMemberStream(archive: path, member: "a.txt", limit: 10)).bytes, [1, 2, 3])
        }
    }

    func testDamageAndTheLimitAreSaid() throws {
        let deflated = BugreportZip.rawDeflate(text)
        let crc = BugreportZip.crc32(text)
        func error(_ zip: [UInt8], limit: Int64 = 1 << 30) throws -> String {
            let path = try write(zip)
            do {
                _ = try readAll(ZipMemberStream(archive: path, member: "b.txt", limit: limit))
            } catch {
                return "\(error)"
            }
            XCTFail("no error")
            return ""
        }
        let good = BugreportZip.single("b.txt", data: deflated, method: 8, crc: crc, size: text.count)
        XCTAssertEqual(try readAll(ZipMemberStream(archive: write(good), member: "b.txt", limit: 1 << 30)).bytes, text)
        XCTAssertTrue(
            try error(BugreportZip.single("b.txt", data: deflated, method: 8, crc: crc ^ 1, size: text.count))
                .contains("CRC-32"))
        XCTAssertTrue(
            try error(BugreportZip.single("b.txt", data: Array(deflated.prefix(100)), method: 8, crc: crc, size: 0))
                .contains("end before the stream does"))
        XCTAssertTrue(
            try error(BugreportZip.single("b.txt", data: [0xff] + deflated, method: 8, crc: crc, size: 0))
                .contains("deflate data is damaged"))
        XCTAssertTrue(try error(good, limit: 1000).contains("more than 1000 bytes"))
        XCTAssertTrue(
            try error(BugreportZip.single("b.txt", data: deflated, method: 12, crc: crc, size: 0)).contains("method 12")
        )
        // Without its end record, the member is found by its local header.
        XCTAssertEqual(
            try readAll(ZipMemberStream(archive: write(good.dropLast(30) + [0]), member: "b.txt", limit: 1 << 30))
                .bytes,
            text)
        XCTAssertTrue(try error(Array(good.prefix(40))).contains("damaged"), "no member whole")
        XCTAssertThrowsError(try ZipMemberStream(archive: write(good), member: "other.txt", limit: 10))
    }

    func testABugreportsMainTextIsTheOneMainEntryNames() throws {
        let zip = BugreportZip.make([
            ("FS/data/bugreport-old.txt", [1], true), ("bugreport-b.txt", [2], true), ("bugreport-a.txt", [3], true),
        ])
        XCTAssertEqual(try ZipMemberStream.bugreportText(in: write(zip), limit: 10).member, "bugreport-a.txt")
        let named = BugreportZip.make([
            ("bugreport-a.txt", [3], true), ("bugreport-b.txt", [2], true),
            ("main_entry.txt", Array("bugreport-b.txt\n".utf8), false),
        ])
        XCTAssertEqual(try ZipMemberStream.bugreportText(in: write(named), limit: 10).member, "bugreport-b.txt")
        let none = BugreportZip.make([("FS/data/misc/other.txt", [1], true)])
        XCTAssertThrowsError(try ZipMemberStream.bugreportText(in: write(none), limit: 10)) {
            XCTAssertTrue("\($0)".contains("no bugreport text"), "\($0)")
        }
    }
}
