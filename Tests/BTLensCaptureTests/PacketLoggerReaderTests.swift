import BTLensCapture
import BTLensCore
import XCTest

/// PacketLogger records: length (u32, excluding itself) = 8 + 1 + payload, seconds, microseconds, type, payload.
final class PacketLoggerReaderTests: XCTestCase {
    func record(
        _ type: UInt8, _ payload: [UInt8], seconds: UInt32 = 1_283_518_326, micros: UInt32 = 465_269,
        bigEndian: Bool
    ) -> [UInt8] {
        func u32(_ v: UInt32) -> [UInt8] {
            let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
            return bigEndian ? be : be.reversed()
        }
        return u32(UInt32(9 + payload.count)) + u32(seconds) + u32(micros) + [type] + payload
    }

    func file(bigEndian: Bool) -> [UInt8] {
        record(0xfc, Array("Product: iPhone17,2".utf8), bigEndian: bigEndian)
            + record(0x00, [0x03, 0x0c, 0x00], bigEndian: bigEndian)
            + record(0x01, [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00], bigEndian: bigEndian)
            + record(0x02, [0x40, 0x20, 0x01, 0x00, 0xaa], bigEndian: bigEndian)
            + record(0x03, [0x40, 0x20, 0x01, 0x00, 0xbb], bigEndian: bigEndian)
            + record(0x08, [0x01, 0x00, 0x00], bigEndian: bigEndian)
            + record(0x13, [0x01, 0x00, 0x00, 0x00], bigEndian: bigEndian)
            + record(
                0xf7, [1, 0, 0, 0, 5] + Array("bluetoothd\0sender\0com.apple.bluetooth\0Server\0hello\0".utf8),
                bigEndian: bigEndian)
            + record(0xfd, [0x01, 0xff, 0x00, 0x80], bigEndian: bigEndian)
    }

    func records(_ bytes: [UInt8]) throws -> (String, [CaptureRecord], [CaptureProblem]) {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var rs: [CaptureRecord] = []
        var ps: [CaptureProblem] = []
        while let item = try reader.next() {
            switch item {
            case .record(let r): rs.append(r)
            case .problem(let p): ps.append(p)
            }
        }
        return (reader.info.linkTypeName, rs, ps)
    }

    func testBothByteOrdersGiveTheSameRecords() throws {
        for big in [true, false] {
            let (name, rs, ps) = try records(file(bigEndian: big))
            XCTAssertEqual(name, "Apple PacketLogger (\(big ? "big" : "little")-endian)")
            XCTAssertEqual(ps, [])
            XCTAssertEqual(
                rs.map(\.kind), [.note, .command, .event, .aclData, .aclData, .scoData, .isoData, .note, .note])
            XCTAssertEqual(rs.map(\.direction), [nil, .sent, .received, .sent, .received, .sent, .received, nil, nil])
            XCTAssertEqual(rs[0].noteText, "Product: iPhone17,2")
            XCTAssertEqual(rs[1].timestamp.iso8601, "2010-09-03T12:52:06.465269Z")
            XCTAssertEqual(Array(rs[3].payload), [0x40, 0x20, 0x01, 0x00, 0xaa])
            XCTAssertEqual(rs[7].noteText, "bluetoothd [com.apple.bluetooth/Server]: hello")
            XCTAssertEqual(rs[8].noteText, "4 bytes: 01ff0080")
            XCTAssertEqual(rs.map(\.fileOffset).first, 0)
        }
    }

    func testEveryHCIPacketTypeGivesItsKindAndDirection() throws {
        // PacketLogger types: 00 command, 01 event, 02/03 ACL sent/received, 08/09 SCO, 12/13 ISO.
        let types: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x08, 0x09, 0x12, 0x13]
        let (_, rs, ps) = try records(types.flatMap { record($0, [0x01, 0x00, 0x00], bigEndian: true) })
        XCTAssertEqual(ps, [])
        XCTAssertEqual(rs.map(\.kind), [.command, .event, .aclData, .aclData, .scoData, .scoData, .isoData, .isoData])
        XCTAssertEqual(rs.map(\.direction), [.sent, .received, .sent, .received, .sent, .received, .sent, .received])
    }

    func testARandomFileIsNotTakenForAPacketLoggerFile() {
        let random: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(random)))
        // A plausible first header followed by a type no PacketLogger writes.
        let bad = record(0x00, [0x03, 0x0c, 0x00], bigEndian: true) + record(0x55, [1], bigEndian: true)
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(bad)))
    }

    func testACorruptLengthInTheMiddleStopsAfterTheRecordsBeforeIt() throws {
        var bytes = file(bigEndian: false)
        let corrupt: [UInt8] = [0xff, 0xff, 0xff, 0x7f] + Array(repeating: 0, count: 9)
        bytes += corrupt + record(0x00, [0x03, 0x0c, 0x00], bigEndian: false)
        let (_, rs, ps) = try records(bytes)
        XCTAssertEqual(rs.count, 9)
        XCTAssertEqual(ps.map(\.diagnostic.id), ["capture.record.length_absurd"])
        XCTAssertEqual(ps.first?.recordNumber, 10)
    }

    /// A microseconds field of a million or more is a corrupt header: said, and the time read as
    /// the field says (it was 4,294 s later, silently).
    func testAMicrosecondsFieldPastASecondIsSaid() throws {
        let bytes = file(bigEndian: false) + record(0x00, [0x03, 0x0c, 0x00], micros: 0xffff_ffff, bigEndian: false)
        let (_, rs, ps) = try records(bytes)
        XCTAssertEqual(rs.count, 10)
        XCTAssertEqual(rs.last?.timestamp.microseconds, 1_283_518_326 * 1_000_000 + 0xffff_ffff)
        XCTAssertEqual(ps.map(\.diagnostic.id), ["capture.time.fraction_invalid"])
        XCTAssertEqual(ps.first?.recordNumber, 10)
        XCTAssertEqual(
            ps.first?.diagnostic.message,
            "record 10 at offset \(bytes.count - 16): microseconds field 4294967295, expected at most 999999")
    }

    func testACutFinalRecordIsShownAndReported() throws {
        let bytes =
            file(bigEndian: true)
            + Array(record(0x02, [0x40, 0x20, 0x04, 0x00, 1, 2, 3, 4], bigEndian: true).prefix(16))
        let (_, rs, ps) = try records(bytes)
        XCTAssertEqual(rs.count, 10)
        XCTAssertEqual(rs.last?.isTruncated, true)
        XCTAssertEqual(ps.map(\.diagnostic.id), ["capture.record.past_end"])
    }
}
