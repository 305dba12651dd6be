import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// `stats` accounts for every byte: framing, decoded, undecoded, truncated and unread add up to the
/// file's size for every capture, and each part is what the file's layout says.
final class ByteAccountingTests: XCTestCase {
    func account(_ bytes: [UInt8]) throws -> (ByteAccounting, records: Int) {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let stats = StatsCollector(file: "capture", info: reader.info)
        try Pipeline.run(&reader, onRecord: stats.record, onProblem: stats.problem, onEvent: stats.event)
        stats.finish(bytesRead: reader.bytesRead)
        return (stats.bytes, stats.records)
    }

    func collect(_ bytes: [UInt8]) throws -> StatsCollector {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let stats = StatsCollector(file: "capture", info: reader.info)
        try Pipeline.run(
            &reader, Configuration(detail: .counts),
            onRecord: stats.record, onProblem: stats.problem, onEvent: stats.event)
        return stats
    }

    /// `stats`' undecoded breakdown lists every byte of its total: channels, and diagnostics by id.
    func testTheUndecodedBreakdownAddsUpToItsTotal() throws {
        let captures =
            SampleCaptures.all.map { ($0.file, $0.session.bytes) }
            + HostileCaptures.all(zeroLengthRecords: 10).map { ($0.file, $0.bytes) }
        for (name, bytes) in captures {
            let stats = try collect(bytes)
            XCTAssertEqual(stats.undecodedByWhat.values.reduce(0, +), stats.undecodedBytes, name)
        }
        // The faults capture has no undecoded event: every byte of its total is a diagnostic's.
        let faults = try collect(SampleCaptures.faults().bytes)
        XCTAssertEqual(faults.undecodedBytes, 40)
        XCTAssertEqual(
            faults.undecodedByWhat,
            [
                "a5.resync": 3, "a5.truncated": 15, "l2cap.incomplete": 10, "l2cap.overlength": 2,
                "l2cap.unexpected_continuation": 3, "l2cap.unexpected_start": 7,
            ])
        XCTAssertTrue(faults.text(connections: []).contains("        3 a5.resync\n"))
    }

    func testTheRealCapturesUndecodedBreakdownAddsUp() throws {
        let folder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures").path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw XCTSkip("../shared/captures is absent")
        }
        var checked = 0
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name),
                let stats = try? collect(Array(data))
            else { continue }
            XCTAssertEqual(stats.undecodedByWhat.values.reduce(0, +), stats.undecodedBytes, name)
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 6)
    }

    func testEverySampleCaptureAddsUpToItsSize() throws {
        for sample in SampleCaptures.all {
            let bytes = sample.session.bytes
            let (a, records) = try account(bytes)
            XCTAssertEqual(a.fileSize, Int64(bytes.count), sample.file)
            XCTAssertEqual(a.unaccounted, 0, sample.file)
            XCTAssertEqual(a.unread, 0, sample.file)
            XCTAssertGreaterThanOrEqual(a.decoded, 0, sample.file)
            // btsnoop: a 16-byte file header, 24 bytes a record header, and H4's type byte (datalink 1002).
            let h4 = ["btmon_monitor.btsnoop", "h1_datalink_1001.btsnoop"].contains(sample.file) ? 0 : 1
            XCTAssertEqual(a.framing, Int64(16 + (24 + h4) * records), sample.file)
        }
    }

    func testTheRealCapturesAddUpToTheirSizes() throws {
        let folder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures").path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw XCTSkip("../shared/captures is absent")
        }
        var checked = 0
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name),
                let (a, _) = try? account(Array(data))
            else { continue }
            XCTAssertEqual(a.fileSize, Int64(data.count), name)
            XCTAssertEqual(a.unaccounted, 0, name)
            XCTAssertEqual(a.unread, 0, name)
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 6)
    }

    func testACutRecordIsCountedAsTruncatedNotUndecoded() throws {
        let (a, _) = try account(SampleCaptures.faults().bytes)
        XCTAssertEqual(a.truncated, 12)
        // The bytes of the two frames cut off are named where they are: #15 and #24.
        XCTAssertEqual(a.undecodedRecords, [9, 15, 18, 20, 21, 24, 25])
        XCTAssertEqual(a.framing + a.decoded + a.undecoded + a.truncated + a.unread, a.fileSize)
    }

    /// Vendor parameters (Core Vol 4 Part E §5.4.1, §7.7.74) are nobody's to decode: they are counted
    /// apart, not as decoded.
    func testVendorParametersAreCountedApartFromTheDecoded() throws {
        var w = BTSnoopWriter()
        // A vendor command with 3 parameter bytes, its completion returning 2 after the status, and
        // a vendor event with 4; then Reset, all of it decoded.
        _ = w.add(.command, .sent, [0x57, 0xfd, 0x03, 0x01, 0x02, 0x03], time: 1)
        _ = w.add(.event, .received, [0x0e, 0x06, 0x01, 0x57, 0xfd, 0x00, 0xaa, 0xbb], time: 2)
        _ = w.add(.event, .received, [0xff, 0x04, 0x01, 0x02, 0x03, 0x04], time: 3)
        _ = w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 4)
        let (a, _) = try account(w.bytes)
        XCTAssertEqual(a.vendor, 3 + 2 + 4)
        XCTAssertEqual(a.decoded, Int64(6 + 8 + 6 + 3) - a.vendor)
        XCTAssertEqual(a.unaccounted, 0)
        XCTAssertTrue(a.lines.contains { $0.hasPrefix("  vendor") && $0.contains(" 9  vendor HCI") })
    }

    func testBytesAfterAnAbsurdLengthAreUnreadAndAFileHeaderCutShortToo() throws {
        var w = BTSnoopWriter()
        _ = w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 1)
        let good = w.bytes
        // A record header claiming 2^31 bytes, then 100 bytes the reader never reaches.
        var absurd =
            good + [0x80, 0, 0, 0, 0x80, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
            + [UInt8](repeating: 0xee, count: 100)
        var (a, _) = try account(absurd)
        XCTAssertEqual(a.unread, 100)
        XCTAssertEqual(a.framing, 16 + 25 + 24, "the absurd record's header was read")
        XCTAssertEqual(a.unaccounted, 0)
        // A record header cut after 10 bytes: they are unread.
        absurd = good + [UInt8](repeating: 0, count: 10)
        (a, _) = try account(absurd)
        XCTAssertEqual(a.unread, 10)
        XCTAssertEqual(a.unaccounted, 0)
    }

    func testPcapAndPcapngFramingIsWhatTheFileOffsetMovedPast() throws {
        let session = SampleCaptures.session()
        for format in [CaptureWriter.Format.pcap, .pcapng] {
            let path = NSTemporaryDirectory() + "btlens-accounting-\(UUID().uuidString).\(format.rawValue)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            var reader = try CaptureFormat.open(MemorySource(session.bytes))
            let writer = try CaptureWriter(path: path, format: format, monitor: false)
            while let item = try reader.next() { if case .record(let r) = item { writer.write(r) } }
            writer.flush()
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
            let (a, records) = try account(Array(bytes))
            XCTAssertEqual(a.unaccounted, 0, format.rawValue)
            XCTAssertEqual(a.fileSize, Int64(bytes.count))
            if format == .pcap {
                // 24-byte file header; 16-byte record headers, 4-byte direction, 1-byte H4 type (LINKTYPE 201).
                XCTAssertEqual(a.framing, Int64(24 + (16 + 4 + 1) * records))
            }
        }
    }
}
