import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Controllers' debug records on reserved ACL header words (docs/protocols/vendor-hci.md,
/// "Controller debug records"): recognised before any connection or L2CAP, shown as `hci.debug`.
final class ControllerDebugTests: XCTestCase {
    /// An ACL packet's data after its 4-byte header, from hex.
    func record(_ hex: String, keep: Int = 4096) -> ControllerDebug? {
        let packet = Hex.bytes(hex) ?? []
        guard let header = ByteReader.u16le(in: packet[...], at: 0) else { return nil }
        return ControllerDebug(header: header, packet.dropFirst(4), keep: keep)
    }

    func testQualcommDebugLogIsLengthAndBytes() throws {
        // Linux hci_qca.c: QCA_DEBUG_HANDLE 0x2EDC, whose packets qca_recv_acl_data hands to
        // hci_recv_diag whole. No public source lays out what they carry.
        let d = try XCTUnwrap(record("dc 2e 06 00 10 27 05 00 aa 55"))
        XCTAssertEqual(d.vendor, .qualcomm)
        XCTAssertEqual(d.kind, .log)
        XCTAssertEqual(d.header, 0x2edc)
        XCTAssertEqual(d.length, 6)
        XCTAssertEqual(d.bytes, [0x10, 0x27, 0x05, 0x00, 0xaa, 0x55])
        XCTAssertNil(d.sequence)
        XCTAssertNil(d.dumpSize)
        XCTAssertEqual(record("dc 2e 06 00 10 27 05 00 aa 55", keep: 2)?.bytesCut, 4)
    }

    func testQualcommMemoryDumpGivesItsSequenceAndSize() throws {
        // Linux btusb.c: QCA_MEMDUMP_ACL_HANDLE 0x2EDD; the data is a vendor event (0xFF, length)
        // holding struct qca_dump_hdr: class 0x01, type 0x08, sequence (LE), reserved; the first
        // packet (sequence 0) then the dump's size, 0x00010000 here, then the dump.
        let first = try XCTUnwrap(record("dd 2e 0d 00 ff 0b 01 08 00 00 00 00 00 01 00 de ad"))
        XCTAssertEqual(first.vendor, .qualcomm)
        XCTAssertEqual(first.kind, .memoryDump)
        XCTAssertEqual(first.sequence, 0)
        XCTAssertEqual(first.dumpSize, 0x1_0000)
        XCTAssertEqual(first.length, 13)
        // The last packet's sequence is 0xFFFF (QCA_LAST_SEQUENCE_NUM); only the first has a size.
        let last = try XCTUnwrap(record("dd 2e 09 00 ff 07 01 08 ff ff 00 be ef"))
        XCTAssertEqual(last.sequence, 0xffff)
        XCTAssertNil(last.dumpSize)
        // Cut before the sequence is whole: nothing is read from it.
        XCTAssertNil(record("dd 2e 05 00 ff 03 01 08 07")?.sequence)
        // Another event code, class or type: the data is bytes only.
        XCTAssertNil(record("dd 2e 07 00 0e 05 01 08 02 00 00")?.sequence)
        XCTAssertNil(record("dd 2e 07 00 ff 05 02 08 02 00 00")?.sequence)
        XCTAssertNil(record("dd 2e 07 00 ff 05 01 09 02 00 00")?.sequence)
        XCTAssertEqual(record("dd 2e 07 00 ff 05 01 08 02 00 00")?.sequence, 2)
        // A sequence 0 packet cut before its size has the sequence alone.
        let cut = try XCTUnwrap(record("dd 2e 09 00 ff 07 01 08 00 00 00 00 01"))
        XCTAssertEqual(cut.sequence, 0)
        XCTAssertNil(cut.dumpSize)
    }

    func testMediaTekDebugLogsAndFirmwareDump() {
        // Linux btusb.c btusb_recv_acl_mtk (later btmtk.c) and btmtksdio.c btmtksdio_recv_acl:
        // 0x05FF and 0x05FE are firmware debug logging, 0xFC6F a firmware dump.
        func channel(_ hex: String) -> String? { record(hex).map { "\($0.vendor.rawValue) \($0.kind.rawValue)" } }
        XCTAssertEqual(channel("ff 05 02 00 01 02"), "MediaTek debug log")
        XCTAssertEqual(channel("fe 05 00 00"), "MediaTek debug log")
        XCTAssertEqual(channel("6f fc 01 00 00"), "MediaTek memory dump")
        XCTAssertNil(record("6f fc 01 00 00")?.sequence)
    }

    func testOnlyTheWholeWordMarksARecord() {
        // The same handle with other flags, and neighbouring handles, are connections' data.
        for hex in ["dc 0e", "dc 1e", "dc 3e", "dc 6e", "db 2e", "de 2e", "ff 15", "ff 25", "6f 0c", "6f 2c"] {
            XCTAssertNil(record(hex + " 00 00"), hex)
        }
    }

    // MARK: through the analyzer

    private static let qcaLog: [UInt8] = [0xdc, 0x2e, 0x04, 0x00, 0x01, 0x02, 0x03, 0x04]

    func testAReceivedRecordIsNoConnectionNoChannelAndNoDiagnostic() throws {
        var s = LESession()
        s.writer.add(.acl, .received, Self.qcaLog, time: s.tick())
        let events = try analyze(s.bytes)
        let debug = events.compactMap { e -> ControllerDebug? in
            if case .hciDebug(let d) = e.body { return d } else { return nil }
        }
        XCTAssertEqual(debug.map(\.length), [4])
        XCTAssertEqual(debug.first?.bytes, [0x01, 0x02, 0x03, 0x04])
        for e in events {
            switch e.body {
            case .note, .hciDebug: continue
            default: XCTFail("\(e.body)")
            }
        }
        XCTAssertNil(events.first { EventType($0) == .hciDebug }?.connection)
    }

    func testSentOrOnAnOpenConnectionItIsACLData() throws {
        // From the host, the word is a connection's: inferred, as any other.
        var sent = LESession()
        sent.writer.add(.acl, .sent, Self.qcaLog, time: sent.tick())
        let fromHost = try analyze(sent.bytes)
        XCTAssertFalse(fromHost.contains { EventType($0) == .hciDebug })
        XCTAssertTrue(fromHost.contains { EventType($0) == .connection })
        // A connection the capture opened with handle 0x0EDC keeps its data.
        var open = LESession()
        open.connect(handle: 0x0edc, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        open.att(handle: 0x0edc, .received, [0x1b, 0x25, 0x00, 0x07])
        let onConnection = try analyze(open.bytes)
        XCTAssertFalse(onConnection.contains { EventType($0) == .hciDebug })
        XCTAssertTrue(onConnection.contains { EventType($0) == .att })
    }

    func testAConnectionInferredFromOtherFlagsDoesNotTakeTheRecords() throws {
        // A continuation on handle 0x0EDC (word 0x1EDC) is a connection's, inferred; the debug
        // records after it are still the controller's.
        var s = LESession()
        s.writer.add(.acl, .received, [0xdc, 0x1e, 0x02, 0x00, 0xaa, 0xbb], time: s.tick())
        s.writer.add(.acl, .received, Self.qcaLog, time: s.tick())
        let events = try analyze(s.bytes)
        XCTAssertTrue(events.contains { EventType($0) == .connection })
        XCTAssertEqual(events.filter { EventType($0) == .hciDebug }.map(\.record), [2])
    }

    func testALengthThatDisagreesIsSaidOnNoConnection() throws {
        var s = LESession()
        s.writer.add(.acl, .received, [0xdc, 0x2e, 0x06, 0x00, 0x01, 0x02, 0x03, 0x04], time: s.tick())
        let events = try analyze(s.bytes)
        let d = try XCTUnwrap(events.first { $0.diagnostic != nil })
        XCTAssertEqual(d.diagnostic?.id, "hci.length_mismatch")
        XCTAssertNil(d.connection)
        XCTAssertFalse(events.contains { EventType($0) == .connection })
    }
}
