import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

final class BTSnoopReaderTests: XCTestCase {
    /// Header: "btsnoop\0", version 1, datalink (all big-endian).
    func header(version: UInt32 = 1, datalink: UInt32 = 1002) -> [UInt8] {
        Array("btsnoop\0".utf8) + be(version) + be(datalink)
    }

    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    func items(_ bytes: [UInt8]) throws -> [CaptureItem] {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var out: [CaptureItem] = []
        while let i = try reader.next() { out.append(i) }
        return out
    }

    func records(_ bytes: [UInt8]) throws -> [CaptureRecord] {
        try items(bytes).compactMap { if case .record(let r) = $0 { return r } else { return nil } }
    }

    func problems(_ bytes: [UInt8]) throws -> [CaptureProblem] {
        try items(bytes).compactMap { if case .problem(let p) = $0 { return p } else { return nil } }
    }

    func testRefusesWhatIsNotABTSnoopFile() {
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource([]))) {
            XCTAssertEqual($0 as? CaptureOpenError, .notACapture(firstBytes: ""))
        }
        XCTAssertThrowsError(
            try CaptureFormat.open(MemorySource([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0]))
        ) {
            XCTAssertEqual($0 as? CaptureOpenError, .notACapture(firstBytes: "7f 45 4c 46 02 01 01 00"))
        }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(Array("hello world, not a capture".utf8)))) {
            XCTAssertEqual(
                "\($0)",
                "text: no BEGIN:BTSNOOP_LOG_SUMMARY block (an Android bugreport or dumpsys bluetooth_manager output holds one)"
            )
        }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(Array("btsnoop\0".utf8) + [0, 0]))) {
            XCTAssertEqual($0 as? CaptureOpenError, .headerTooShort(format: "btsnoop", have: 10, need: 16))
        }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(header(version: 2)))) {
            XCTAssertEqual("\($0)", "btsnoop: version 2 at offset 8; only version 1 exists")
        }
        XCTAssertThrowsError(try CaptureFormat.open(MemorySource(header(datalink: 1003)))) {
            XCTAssertEqual("\($0)", "btsnoop: datalink 1003 (BCSP) at offset 12 is not an HCI log btlens reads")
        }
    }

    func testH4RecordsTakeTheirKindFromTheIndicatorAndDirectionFromFlags() throws {
        var w = BTSnoopWriter(datalink: 1002)
        w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 1_000_000)
        w.add(.event, .received, [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00], time: 2_000_000)
        w.add(.acl, .received, [0x40, 0x20, 0x00, 0x00], time: 3_000_000)
        w.add(.sco, .sent, [0x01, 0x00, 0x00], time: 4_000_000)
        w.add(.iso, .received, [0x01, 0x00, 0x00, 0x00], time: 5_000_000)
        let rs = try records(w.bytes)
        XCTAssertEqual(rs.map(\.kind), [.command, .event, .aclData, .scoData, .isoData])
        XCTAssertEqual(rs.map(\.direction), [.sent, .received, .received, .sent, .received])
        XCTAssertEqual(rs.map(\.number), [1, 2, 3, 4, 5])
        let offsets: [Int64] = [16, 44, 75, 104, 132]  // 24-byte headers + H4 byte + packet
        XCTAssertEqual(rs.map(\.fileOffset), offsets)
        XCTAssertEqual(Array(rs[0].payload), [0x03, 0x0c, 0x00], "the H4 byte is not part of the packet")
        XCTAssertEqual(rs[1].timestamp, Timestamp(microseconds: 2_000_000))
    }

    func testTimestampsUseTheBTSnoopEpoch() throws {
        // 0x00E03AB44A676000 is 2000-01-01 in btsnoop time (BlueZ's constant): 946,684,800 s after 1970.
        var bytes = header()
        bytes += be(4) + be(4) + be(2) + be(0) + be(0x00e0_3ab4) + be(0x4a67_6000) + [0x01, 0x03, 0x0c, 0x00]
        XCTAssertEqual(try records(bytes).first?.timestamp.iso8601, "2000-01-01T00:00:00.000000Z")
    }

    /// A raw time (i64 µs since year 0) within 0x00DCDDB30F2F8000 of Int64.min has no Unix time: it
    /// read as 0, 1970-01-01, a date that looks real. It saturates at the earliest time, like pcap's.
    func testATimeBeforeInt64sRangeSaturates() throws {
        var bytes = header()
        bytes += be(4) + be(4) + be(2) + be(0) + be(0x8000_0000) + be(0) + [0x01, 0x03, 0x0c, 0x00]
        XCTAssertEqual(try records(bytes).first?.timestamp.microseconds, .min)
    }

    func testH1RecordsTakeTheirKindFromTheFlags() throws {
        var w = BTSnoopWriter(datalink: 1001)
        w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 0)
        w.add(.event, .received, [0x0e, 0x01, 0x01], time: 0)
        w.add(.acl, .sent, [0x40, 0x20, 0x00, 0x00], time: 0)
        let rs = try records(w.bytes)
        XCTAssertEqual(rs.map(\.kind), [.command, .event, .aclData])
        XCTAssertEqual(Array(rs[0].payload), [0x03, 0x0c, 0x00])
        XCTAssertEqual(try problems(w.bytes), [])
    }

    func testA1001FileHoldingH4BytesIsReadAsH4AndSaysSo() throws {
        var w = BTSnoopWriter(datalink: 1001, h4: true)
        w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 0)
        w.add(.acl, .sent, [0x40, 0x20, 0x00, 0x00], time: 0)
        let rs = try records(w.bytes)
        XCTAssertEqual(rs.map(\.kind), [.command, .aclData])
        XCTAssertEqual(Array(rs[0].payload), [0x03, 0x0c, 0x00])
        XCTAssertEqual(try problems(w.bytes).map(\.diagnostic.id), ["capture.btsnoop.h4_in_1001"])
    }

    func testMonitorRecordsCarryIndexOpcodeAndNotes() throws {
        var w = BTSnoopWriter(datalink: 2001)
        w.addMonitor(opcode: 12, index: 0xffff, Array("Bluetooth subsystem version 2.22\0".utf8), time: 0)
        w.addMonitor(opcode: 0, index: 1, [0x00, 0x01, 1, 2, 3, 4, 5, 6] + Array("hci1".utf8) + [0, 0, 0, 0], time: 0)
        w.addMonitor(opcode: 13, index: 0, [3, 4] + Array("test".utf8) + Array("hello\n".utf8), time: 0)
        w.addMonitor(opcode: 5, index: 1, [0x40, 0x20, 0x00, 0x00], time: 0)
        w.addMonitor(opcode: 99, index: 0, [1, 2], time: 0)
        let rs = try records(w.bytes)
        XCTAssertEqual(rs.map(\.kind), [.note, .note, .note, .aclData, .unknown])
        XCTAssertEqual(rs[0].noteText, "Bluetooth subsystem version 2.22")
        XCTAssertEqual(rs[0].controllerIndex, 0xffff)
        XCTAssertEqual(rs[1].noteCategory, "New Index")
        XCTAssertEqual(rs[1].noteText, "hci1 type Primary bus USB address 06:05:04:03:02:01")
        XCTAssertEqual(rs[2].noteText, "[3] test: hello")
        XCTAssertEqual(rs[3].direction, .received)
        XCTAssertEqual(rs[3].controllerIndex, 1)
        XCTAssertEqual(rs[4].noteCategory, "Monitor opcode 99")
    }

    func testIncludedShorterThanOriginalIsACaptureTruncation() throws {
        var w = BTSnoopWriter(datalink: 1002)
        w.add(.acl, .sent, [0x40, 0x20, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8], time: 0, cutTo: 6)
        let r = try records(w.bytes)[0]
        XCTAssertTrue(r.isTruncated)
        XCTAssertEqual(r.payload.count, 6)
        XCTAssertEqual(r.originalLength, 12)
    }

    func testDamagedFilesStopWithADiagnosticAfterWhatCouldBeRead() throws {
        var w = BTSnoopWriter(datalink: 1002)
        w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 0)
        var cutHeader = w
        cutHeader.appendGarbage([0, 0, 0, 4, 0, 0])
        XCTAssertEqual(try records(cutHeader.bytes).count, 1)
        let p = try problems(cutHeader.bytes)
        XCTAssertEqual(p.map(\.diagnostic.id), ["capture.record.header_cut"])
        XCTAssertEqual(p.first?.recordNumber, 2)
        XCTAssertEqual(p.first?.fileOffset, 44)
        XCTAssertEqual(
            p.first?.diagnostic.message, "record 2 at offset 44: the file ends after 6 of the 24 header bytes")

        var absurd = w
        absurd.addRaw([1, 2, 3], flags: 0, time: 0, cutTo: nil, includedOverride: 0x7fff_ffff)
        XCTAssertEqual(try problems(absurd.bytes).map(\.diagnostic.id), ["capture.record.length_absurd"])
        XCTAssertEqual(try records(absurd.bytes).count, 1)

        var inconsistent = w
        inconsistent.addRaw([1, 3, 0x0c, 0], flags: 2, time: 0, cutTo: nil, includedOverride: 4)
        XCTAssertEqual(try records(inconsistent.bytes).count, 2)

        var empty = w
        empty.addRaw([], flags: 0, time: 0, cutTo: nil)
        XCTAssertEqual(try problems(empty.bytes).map(\.diagnostic.id), ["capture.record.empty"])

        var unknownType = w
        unknownType.addRaw([0x09, 0x01], flags: 0, time: 0, cutTo: nil)
        XCTAssertEqual(try records(unknownType.bytes).last?.kind, .unknown)
    }

    func testAnH4RecordCutByTheFileEndKeepsWhatItHasAfterItsIndicator() throws {
        var w = BTSnoopWriter(datalink: 1002)
        w.add(.command, .sent, [0x03, 0x0c, 0x00], time: 0)
        // An ACL record that claims 10 bytes (indicator 02 and 9 of packet); the file holds 5.
        var cut = w
        cut.addRaw([0x02, 0x40, 0x20, 0x05, 0x00], flags: 0, time: 0, cutTo: nil, includedOverride: 10)
        let last = try records(cut.bytes).last
        XCTAssertEqual(last?.kind, .aclData)
        XCTAssertEqual(
            last.map { Array($0.payload) }, [0x40, 0x20, 0x05, 0x00], "the indicator is not part of the packet")
        XCTAssertEqual(last?.originalLength, 9)
        XCTAssertEqual(
            try problems(cut.bytes).map(\.diagnostic.message),
            ["record 2 at offset 44 claims 10 bytes but the file ends after 5"])
        // The file ends right after the record's header: no indicator, so no packet.
        var bare = w
        bare.addRaw([], flags: 0, time: 0, cutTo: nil, includedOverride: 10)
        XCTAssertEqual(
            try problems(bare.bytes).map(\.diagnostic.id), ["capture.record.empty", "capture.record.past_end"])
        XCTAssertEqual(try records(bare.bytes).count, 1)
    }

    func testEveryMonitorPacketOpcodeGivesItsKindAndDirection() throws {
        // BlueZ monitor opcodes (btsnoop datalink 2001): 2 command, 3 event, 4/5 ACL TX/RX, 6/7 SCO TX/RX, 18/19 ISO TX/RX.
        var w = BTSnoopWriter(datalink: 2001)
        for opcode: UInt16 in [2, 3, 4, 5, 6, 7, 18, 19] {
            w.addMonitor(opcode: opcode, index: 0, [0x01, 0x00, 0x00], time: 0)
        }
        let rs = try records(w.bytes)
        XCTAssertEqual(rs.map(\.kind), [.command, .event, .aclData, .aclData, .scoData, .scoData, .isoData, .isoData])
        XCTAssertEqual(rs.map(\.direction), [.sent, .received, .sent, .received, .sent, .received, .sent, .received])
    }

    func testReadingOneByteAtATimeGivesTheSameRecords() throws {
        let bytes = SampleCaptures.session().bytes
        var a = try CaptureFormat.open(MemorySource(bytes))
        var b = try CaptureFormat.open(DribbleSource(bytes, size: 1))
        while true {
            let x = try a.next()
            let y = try b.next()
            guard case .record(let r)? = x, case .record(let s)? = y else {
                XCTAssertNil(x)
                XCTAssertNil(y)
                break
            }
            XCTAssertEqual(r.number, s.number)
            XCTAssertEqual(Array(r.payload), Array(s.payload))
            XCTAssertEqual(r.fileOffset, s.fileOffset)
        }
    }

    func testInPlaceReadsStayWithinWhatIsAvailable() throws {
        var input = ChunkedInput(MemorySource([0x01, 0x02, 0x03, 0x04, 0x05, 0x06]))
        XCTAssertTrue(try input.ensure(6))
        XCTAssertEqual(input.peekBigEndian(UInt32.self, at: 0), 0x0102_0304)
        XCTAssertEqual(input.peekBigEndian(UInt32.self, at: 2), 0x0304_0506)
        XCTAssertNil(input.peekBigEndian(UInt32.self, at: 3), "a read past the end is nil, not a trap")
        XCTAssertNil(input.peekBigEndian(UInt16.self, at: -1))
        input.skip(5)
        XCTAssertEqual(input.takeByte(), 0x06)
        XCTAssertNil(input.takeByte())
        input.skip(3)
        XCTAssertEqual(input.offset, 6, "a skip past the end stops at it")
    }

    func testLibpcapIsLinked() {
        XCTAssertTrue(Libpcap.version.contains("libpcap"), Libpcap.version)
    }
}
