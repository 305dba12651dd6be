import XCTest
import Foundation
import ZIPFoundation
import BTLensCapture
import BTLensTestSupport

final class BugreportArchiveTests: XCTestCase {
    func zip(_ members: [(String, [UInt8])]) throws -> String {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, bytes) in members {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                Data(bytes[Int(position) ..< Int(position) + size])
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
        XCTAssertEqual(reader.info.notes, ["bugreport member FS/data/misc/bluetooth/logs/btsnoop_hci.log; also inside: FS/data/misc/bluetooth/logs/btsnoop_hci.log.last, bugreport-phone-2026-11-22.txt"])
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
            XCTAssertEqual("\($0)", "zip: no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt)")
        }
    }
}
