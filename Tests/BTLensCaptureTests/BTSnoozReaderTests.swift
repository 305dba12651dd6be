import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

final class BTSnoozReaderTests: XCTestCase {
    func sample(version: UInt8) -> BTSnoozWriter {
        var w = BTSnoozWriter(version: version, lastTimestamp: 1_510_394_584_000_000)
        w.records = [
            .init(type: 0x20, delta: 5, bytes: [0x03, 0x0c, 0x00]),  // OUT_CMD
            .init(type: 0x10, delta: 1_000, bytes: [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]),  // IN_EVT
            // OUT_ACL cut to 14 bytes by the summary; the packet was 30.
            .init(
                type: 0x21, delta: 250_000,
                bytes: [0x40, 0x20, 0x1a, 0x00, 0x16, 0x00, 0x04, 0x00, 0x52, 0x13, 0x00, 0xa5, 0x01, 0x20],
                original: version == 2 ? 30 : nil),
            .init(type: 0x11, delta: 2, bytes: [0x40, 0x20, 0x00, 0x00]),  // IN_ACL
        ]
        return w
    }

    func read(_ text: String) throws -> (CaptureInfo, [CaptureRecord]) {
        var reader = try CaptureFormat.open(MemorySource(Array(text.utf8)))
        var rs: [CaptureRecord] = []
        while let item = try reader.next() { if case .record(let r) = item { rs.append(r) } }
        return (reader.info, rs)
    }

    func testBothVersionsWalkTimesBackFromTheLast() throws {
        for version: UInt8 in [1, 2] {
            let (info, rs) = try read(sample(version: version).text())
            XCTAssertEqual(info.format, "btsnooz")
            XCTAssertEqual(info.linkType, Int(version))
            XCTAssertEqual(rs.map(\.kind), [.command, .event, .aclData, .aclData])
            XCTAssertEqual(rs.map(\.direction), [.sent, .received, .sent, .received])
            // The last record is at the last timestamp; each earlier one its successor's delta before.
            XCTAssertEqual(
                rs.map(\.timestamp.microseconds),
                [1_510_394_583_748_998, 1_510_394_583_749_998, 1_510_394_583_999_998, 1_510_394_584_000_000])
            XCTAssertEqual(Array(rs[0].payload), [0x03, 0x0c, 0x00])
        }
    }

    /// A last timestamp (u64 LE, any value) near Int64.min minus the deltas wrapped to the far
    /// future; walking back saturates at the earliest time instead (capture.time.absurd says it).
    func testWalkingBackFromTheEarliestTimeSaturates() throws {
        var w = sample(version: 1)
        w.lastTimestamp = UInt64(bitPattern: Int64.min + 3)
        let (_, rs) = try read(w.text())
        XCTAssertEqual(rs.map(\.timestamp.microseconds), [.min, .min, .min + 1, .min + 3])
    }

    func testTheFourteenByteCutIsACaptureTruncation() throws {
        let (_, rs) = try read(sample(version: 2).text())
        XCTAssertTrue(rs[2].isTruncated)
        XCTAssertEqual(rs[2].payload.count, 14)
        XCTAssertEqual(rs[2].originalLength, 30)
        XCTAssertFalse(rs[3].isTruncated)
    }

    func testDamagedSummariesAreRefusedWithAReason() {
        XCTAssertThrowsError(try read("just a text file\nwith lines\n")) {
            XCTAssertTrue("\($0)".contains("no BEGIN:BTSNOOP_LOG_SUMMARY block"), "\($0)")
        }
        let w = sample(version: 2)
        XCTAssertThrowsError(try read(w.text(compressed: [0x78, 0x9c, 0xff, 0xff, 0x00]))) {
            XCTAssertTrue("\($0)".contains("zlib stream is damaged"), "\($0)")
        }
        let unterminated = w.text().components(separatedBy: "--- END")[0]
        XCTAssertThrowsError(try read(unterminated)) {
            XCTAssertTrue("\($0)".contains("ends before END:BTSNOOP_LOG_SUMMARY"), "\($0)")
        }
    }

    /// Android keeps 128 KiB of summary, 1 MiB on some devices: one that inflates past 8 MiB is
    /// refused, so that a summary held whole stays small (it was 64 MiB, and 205 MB of RSS).
    func testASummaryPastEightMiBIsRefusedAndOneBelowIsRead() throws {
        var w = BTSnoozWriter(version: 1, lastTimestamp: 1_510_394_584_000_000)
        // Records of 8 bytes: 7 of header, one of payload (an HCI event code alone).
        w.records = Array(repeating: .init(type: 0x10, delta: 1, bytes: [0x0e]), count: (8 << 20) / 8 + 1)
        XCTAssertThrowsError(try read(w.text())) {
            XCTAssertTrue(
                "\($0)".contains("the summary inflates to more than 8388608 bytes; Android keeps at most 1 MiB"),
                "\($0)")
        }
        w.records.removeLast(2)
        let (_, rs) = try read(w.text())
        XCTAssertEqual(rs.count, (8 << 20) / 8 - 1)
        // Walked back from the last, 1 µs a record, without a table of every record's time.
        XCTAssertEqual(rs.first?.timestamp.microseconds, 1_510_394_584_000_000 - Int64(rs.count - 1))
        XCTAssertEqual(rs.last?.timestamp.microseconds, 1_510_394_584_000_000)
    }

    func testTheSummaryIsFoundDeepInALargeText() throws {
        let filler = String(repeating: "some bugreport line that is not the summary\n", count: 5_000)
        let (_, rs) = try read(filler + sample(version: 1).text())
        XCTAssertEqual(rs.count, 4)
    }
}
