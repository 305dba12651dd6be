import BTLensTestSupport
import Foundation
import XCTest

/// A Qualcomm controller's debug records among an LE connection's ATT traffic, through the CLI:
/// one `hci.debug` line each, no connection made up, no L2CAP, no diagnostic; `stats` counts their
/// data as `debug` bytes; the filter selects them by their fields (docs/protocols/vendor-hci.md).
final class ControllerDebugTimelineTests: XCTestCase {
    /// A debug log whose data would read as an L2CAP signalling PDU of length 8 (hci_qca.c's
    /// QCA_DEBUG_HANDLE 0x2EDC), and the first packet of a memory dump (btusb.c's
    /// QCA_MEMDUMP_ACL_HANDLE 0x2EDD: vendor event 0xFF, class 0x01, type 0x08, sequence 0,
    /// reserved, dump size 0x00020000, two bytes of dump).
    static let debugLog: [UInt8] = [
        0xdc, 0x2e, 0x0c, 0x00, 0x08, 0x00, 0x01, 0x00, 0x17, 0x2a, 0x04, 0x00, 0x10, 0x27, 0x00, 0x00,
    ]
    static let memoryDump: [UInt8] = [
        0xdd, 0x2e, 0x0d, 0x00, 0xff, 0x0b, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x5a, 0xa5,
    ]

    static var capture: [UInt8] {
        var s = LESession()
        s.connect(handle: 0x0040, address: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        s.att(handle: 0x0040, .sent, [0x0a, 0x03, 0x00])
        s.writer.add(.acl, .received, debugLog, time: s.tick())
        s.att(handle: 0x0040, .received, [0x0b] + Array("btlens".utf8))
        s.writer.add(.acl, .received, memoryDump, time: s.tick())
        s.disconnect(handle: 0x0040)
        return s.bytes
    }

    private func file() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-qca-\(getpid()).btsnoop")
        try Data(Self.capture).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    private func run(_ arguments: [String]) throws -> String {
        let run = try runCLI(arguments + ["--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        return run.stdout
    }

    func testTimelineShowsEachRecordOnOneHCILine() throws {
        XCTAssertEqual(try run(["timeline", file()]), Self.timeline)
    }

    func testJSONLHasTheDeclaredFields() throws {
        let lines = try run(["timeline", file(), "--format", "jsonl"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.contains(#""type":"hci.debug""#) }, Self.jsonl)
        XCTAssertFalse(lines.contains { $0.contains(#""type":"diagnostic""#) })
        XCTAssertEqual(lines.filter { $0.contains(#""type":"connection""#) }.count, 2)
    }

    func testStatsCountsTheDataAsDebugBytesAndNoConnectionOrDiagnostic() throws {
        let text = try run(["stats", file()])
        let row = "\n  debug       25  controllers' debug records (logs, memory dumps), not decoded\n"
        XCTAssertTrue(text.contains(row), text)
        XCTAssertTrue(text.contains("\nConnections: 1\n  0x0040 "), text)
        XCTAssertTrue(text.contains("\nDiagnostics: 0\n"), text)
        let json = try run(["stats", file(), "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let bytes = try XCTUnwrap(object["bytes"] as? [String: Any])
        XCTAssertEqual(bytes["debug"] as? Int, 12 + 13)
        XCTAssertEqual(bytes["undecoded"] as? Int, 0)
        XCTAssertEqual(bytes["unaccounted"] as? Int, 0)
        XCTAssertEqual((object["connections"] as? [Any])?.count, 1)
        XCTAssertEqual((object["diagnostics"] as? [String: Any])?.count, 0, json)
    }

    func testTheFilterSelectsRecordsByTypeAndField() throws {
        let path = try file()
        let lines = Self.timeline.split(separator: "\n").map { String($0) + "\n" }
        let debug = lines.filter { $0.contains(" HCI   Qualcomm ") }.joined()
        XCTAssertEqual(try run(["timeline", path, "-Y", "hci.debug"]), debug)
        XCTAssertEqual(
            try run(["timeline", path, "-Y", #"kind == "memory dump" && sequence == 0 && dump_size == 0x20000"#]),
            lines.filter { $0.contains("memory dump") }.joined())
        XCTAssertEqual(try run(["timeline", path, "-Y", "hci.debug && bytes contains 17:2a"]), lines[6])
        XCTAssertEqual(try run(["timeline", path, "-Y", "vendor == MediaTek"]), "")
    }

    /// #5 and #7 are the debug records: one line each, on no connection.
    static let timeline = """
        #1           0.000000 =      - NOTE  dissectors.loaded: none (--no-dissectors): built-in dissectors only
        #1           0.000000 <      - HCI   LE Create Connection (0x200d) scan_interval=96 scan_interval_ms=60.000 scan_window=48 scan_window_ms=30.000 initiator_filter_policy=0 address_type=0 address=11:22:33:44:55:66 own_address_type=0 interval_min=24 interval_min_ms=30.00 interval_max=40 interval_max_ms=50.00 latency=0 timeout=500 timeout_ms=5000 min_ce_length=0 min_ce_length_ms=0.000 max_ce_length=0 max_ce_length_ms=0.000
        #2           0.001250 >      - HCI   Command Status (0x0f) command="LE Create Connection" opcode=0x200d status=Success
        #3           0.002500 >      - HCI   LE Connection Complete (0x01) status=Success handle=0x0040 role=central address=11:22:33:44:55:66 address_type=0 interval=24 interval_ms=30.00 latency=0 timeout=500 timeout_ms=5000
        #3           0.002500 > 0x0040 HCI   Connected 11:22:33:44:55:66 (LE, we are central) handle 0x0040
        #4           0.003750 < 0x0040 ATT   Read Request 0x0003
        #5           0.005000 >      - HCI   Qualcomm debug log (ACL 0x2edc), 12 bytes: 08 00 01 00 17 2a 04 00 10 27 00 00
        #6           0.006250 > 0x0040 ATT   Read Response 0x0003 value 62 74 6c 65 6e 73
        #7           0.007500 >      - HCI   Qualcomm memory dump (ACL 0x2edd) sequence 0 of a 131072-byte dump, 13 bytes: ff 0b 01 08 00 00 00 00 00 02 00 5a a5
        #8           0.008750 <      - HCI   Disconnect (0x0406) handle=0x0040 reason="Remote User Terminated Connection"
        #9           0.010000 >      - HCI   Command Status (0x0f) command=Disconnect opcode=0x0406 status=Success
        #10          0.011250 >      - HCI   Disconnection Complete (0x05) status=Success handle=0x0040 reason="Connection Terminated By Local Host"
        #10          0.011250 > 0x0040 HCI   Disconnected 11:22:33:44:55:66: Connection Terminated By Local Host, opened at #3

        """

    static let jsonl = [
        #"{"type":"hci.debug","record":5,"time":"2023-11-14T22:13:20.006250Z","direction":"received","vendor":"Qualcomm","kind":"debug log","acl_header":11996,"length":12,"bytes":"08000100172a040010270000","bytes_cut":0}"#,
        #"{"type":"hci.debug","record":7,"time":"2023-11-14T22:13:20.008750Z","direction":"received","vendor":"Qualcomm","kind":"memory dump","acl_header":11997,"sequence":0,"dump_size":131072,"length":13,"bytes":"ff0b0108000000000002005aa5","bytes_cut":0}"#,
    ]
}
