import BTLensCapture
import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// A bugreport .zip cut short (a transfer that broke off) has no central directory: its members are
/// found from their local headers (APPNOTE.TXT 4.3.7), and read as far as they go.
final class ZipLocalScanTests: XCTestCase {
    /// A member as Android's dumpstate writes one: a local header with flag bit 3 and sizes 0, the
    /// raw deflate data, then a data descriptor (4.3.9: signature, CRC-32, compressed and
    /// uncompressed sizes).
    static func described(_ name: String, _ bytes: [UInt8]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xffff) + u16(v >> 16 & 0xffff) }
        let data = BugreportZip.rawDeflate(bytes)
        let crc = Int(BugreportZip.crc32(bytes))
        return [0x50, 0x4b, 0x03, 0x04] + u16(20) + u16(0x08) + u16(8) + u16(0) + u16(0x5821) + u32(0) + u32(0)
            + u32(0) + u16(name.utf8.count) + u16(0) + Array(name.utf8) + data
            + [0x50, 0x4b, 0x07, 0x08] + u32(crc) + u32(data.count) + u32(bytes.count)
    }

    func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-cut-\(UUID().uuidString).zip")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func records(_ reader: inout any CaptureReader) throws -> Int {
        var n = 0
        while let item = try reader.next() { if case .record = item { n += 1 } }
        return n
    }

    let log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"

    func testMembersWithSizesInTheirHeadersAreReadWithoutTheDirectory() throws {
        let capture = SampleCaptures.session()
        let whole = BugreportZip.make([("bugreport-x.txt", Array("hello\n".utf8), true), (log, capture.bytes, true)])
        let directory = try XCTUnwrap(Self.find([0x50, 0x4b, 0x01, 0x02], in: whole))
        var reader = try CaptureFormat.open(path: try write(Array(whole[..<directory])))
        XCTAssertEqual(try records(&reader), capture.lastRecord)
        XCTAssertEqual(
            reader.info.notes,
            [
                "bugreport member \(log) (damaged: no central directory, cut short? 2 members read from their local headers; read as far as it goes); also inside: bugreport-x.txt"
            ])
    }

    func testMembersWithDataDescriptorsAreFoundByInflatingThem() throws {
        let capture = SampleCaptures.session()
        let text = Array(String(repeating: "dumpstate\n", count: 500).utf8)
        let zip = Self.described("bugreport-x.txt", text) + Self.described(log, capture.bytes)
        var reader = try CaptureFormat.open(path: try write(zip))
        XCTAssertEqual(try records(&reader), capture.lastRecord)
        XCTAssertTrue(reader.info.notes.first?.hasPrefix("bugreport member \(log) (damaged: no central") ?? false)
        // The log itself cut short: its records up to the cut, the rest said as damage.
        var cut = try CaptureFormat.open(path: try write(Array(zip.dropLast(60))))
        let kept = try records(&cut)
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThan(kept, capture.lastRecord)
        XCTAssertTrue(
            cut.info.notes.first?.contains("deflate data end before the stream does") ?? false, "\(cut.info.notes)")
    }

    /// Cut at every offset: a capture, or an error saying why, never a trap or a hang.
    func testAZipCutAnywhereIsReadOrRefused() throws {
        let zip =
            Self.described("bugreport-x.txt", Array("hello\n".utf8))
            + Self.described(log, SampleCaptures.session().bytes)
        var read = 0
        for cut in stride(from: 0, through: zip.count, by: 7) {
            let path = try write(Array(zip[..<cut]))
            if var reader = try? CaptureFormat.open(path: path) {
                _ = try? records(&reader)
                read += 1
            }
            try FileManager.default.removeItem(atPath: path)
        }
        XCTAssertGreaterThan(read, 0)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        (0...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
