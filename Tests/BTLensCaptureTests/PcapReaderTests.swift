import BTLensCapture
import BTLensCore
import XCTest

/// pcap files built byte by byte (little-endian, magic a1b2c3d4, version 2.4), read through libpcap.
final class PcapReaderTests: XCTestCase {
    func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
    }

    func pcap(linkType: UInt32, _ packets: [[UInt8]], snap: Int? = nil) -> [UInt8] {
        var out = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(linkType)
        for (i, p) in packets.enumerated() {
            let kept = snap.map { Array(p.prefix($0)) } ?? p
            out += le32(1_700_000_000) + le32(UInt32(i)) + le32(UInt32(kept.count)) + le32(UInt32(p.count)) + kept
        }
        return out
    }

    func read(_ bytes: [UInt8]) throws -> (CaptureInfo, [CaptureRecord]) {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var rs: [CaptureRecord] = []
        while let item = try reader.next() { if case .record(let r) = item { rs.append(r) } }
        return (reader.info, rs)
    }

    func testH4WithDirectionHeader() throws {
        // 201: 4-byte big-endian direction, bit 0 set = received; then the H4 byte.
        let (info, rs) = try read(
            pcap(
                linkType: 201,
                [
                    [0, 0, 0, 0, 0x01, 0x03, 0x0c, 0x00],
                    [0, 0, 0, 1, 0x02, 0x40, 0x20, 0x01, 0x00, 0xaa],
                    [0, 0, 0, 0, 0x02, 0x40, 0x20, 0x01, 0x00, 0xbb],
                ]))
        XCTAssertEqual(info.format, "pcap")
        XCTAssertEqual(info.linkType, 201)
        XCTAssertEqual(rs.map(\.kind), [.command, .aclData, .aclData])
        XCTAssertEqual(rs.map(\.direction), [.sent, .received, .sent])
        XCTAssertEqual(Array(rs[1].payload), [0x40, 0x20, 0x01, 0x00, 0xaa])
        XCTAssertEqual(rs[1].timestamp.microseconds, 1_700_000_000_000_001)
        XCTAssertEqual(rs.map(\.number), [1, 2, 3])
    }

    func testH4WithoutDirectionAndMonitor() throws {
        let (_, h4) = try read(pcap(linkType: 187, [[0x04, 0x0e, 0x01, 0x01], [0x02, 0x40, 0x20, 0x00, 0x00]]))
        XCTAssertEqual(h4.map(\.kind), [.event, .aclData])
        XCTAssertEqual(h4.map(\.direction), [.received, nil])
        // 254: adapter index (u16 BE) and opcode (u16 BE): index 1, ACL RX (5); then a System Note (12).
        let (_, mon) = try read(
            pcap(linkType: 254, [[0, 1, 0, 5, 0x40, 0x20, 0x00, 0x00], [0xff, 0xff, 0, 12] + Array("hi\0".utf8)]))
        XCTAssertEqual(mon.map(\.kind), [.aclData, .note])
        XCTAssertEqual(mon.first?.controllerIndex, 1)
        XCTAssertEqual(mon.first?.direction, .received)
        XCTAssertEqual(mon.last?.noteText, "hi")
    }

    func testSnapLengthIsACaptureTruncation() throws {
        let (_, rs) = try read(pcap(linkType: 201, [[0, 0, 0, 1, 0x02, 0x40, 0x20, 0x04, 0x00, 1, 2, 3, 4]], snap: 9))
        XCTAssertEqual(rs.first?.isTruncated, true)
        XCTAssertEqual(rs.first?.payload.count, 4)
        XCTAssertEqual(rs.first?.originalLength, 8)
    }

    func testBasebandAndOtherLinkTypesAreRefusedWithAReason() {
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(pcap(linkType: 255, [[1, 2, 3]])))) {
            XCTAssertTrue("\($0)".contains("this is an over-the-air link-layer capture, not an HCI log"), "\($0)")
        }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(pcap(linkType: 1, [[1, 2, 3]])))) {
            XCTAssertTrue("\($0)".contains("link type 1 is not a Bluetooth link type btlens reads"), "\($0)")
        }
    }

    func testPcapng() throws {
        // Section Header Block, Interface Description Block (link type 201), one Enhanced Packet Block.
        let shb =
            le32(0x0a0d_0d0a) + le32(28) + le32(0x1a2b_3c4d) + [1, 0, 0, 0] + [
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ] + le32(28)
        let idb = le32(1) + le32(20) + [201, 0, 0, 0] + le32(0) + le32(20)
        let data: [UInt8] = [0, 0, 0, 1, 0x04, 0x0e, 0x01, 0x01]
        let epb =
            le32(6) + le32(32 + UInt32(data.count)) + le32(0) + le32(0) + le32(1_000_000) + le32(8) + le32(8) + data
            + le32(32 + UInt32(data.count))
        let (info, rs) = try read(shb + idb + epb)
        XCTAssertEqual(info.format, "pcapng")
        XCTAssertEqual(rs.map(\.kind), [.event])
        XCTAssertEqual(rs.first?.timestamp.microseconds, 1_000_000)
    }

    func testAMicrosecondsFieldOfAMillionOrMoreIsSaid() throws {
        // pcap record header (libpcap savefile.c): ts_sec, ts_usec, incl_len, orig_len. Record 2 says
        // 1,500,000 µs; it is kept, read as the field says, and said with its record and offset.
        var bytes = pcap(linkType: 187, [[0x04, 0x0e, 0x01, 0x01]])
        bytes += le32(1_700_000_000) + le32(1_500_000) + le32(4) + le32(4) + [0x04, 0x0e, 0x01, 0x01]
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var items: [String] = []
        while let item = try reader.next() {
            switch item {
            case .record(let r): items.append("record \(r.number) \(r.timestamp.microseconds)")
            case .problem(let p):
                items.append("\(p.diagnostic.id) \(p.recordNumber) \(p.fileOffset): \(p.diagnostic.message)")
            }
        }
        XCTAssertEqual(
            items,
            [
                "record 1 1700000000000000", "record 2 1700000001500000",
                "capture.time.fraction_invalid 2 44: record 2 at offset 44: microseconds field 1500000, expected at most 999999",
            ])
    }
}
