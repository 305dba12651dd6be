import BTLensTestSupport
import Foundation
import XCTest

/// The sample sniffer capture (`SnifferCapture`, LINKTYPE 256) through the CLI, and `formats`.
final class SnifferTimelineTests: XCTestCase {
    private func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-sniffer-\(getpid()).pcap")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func testTheSampleTimeline() throws {
        let run = try runCLI(["timeline", try write(SnifferCapture.bytes()), "--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Self.expected)
    }

    /// `follow` reads a sniffer capture from a pipe (libpcap through PipePump) as `timeline` reads the file.
    func testFollowFromAPipeGivesTheSameTimeline() throws {
        let path = try write(SnifferCapture.bytes(.nordic))
        let followed = try runCLI(["follow", "-", "--no-dissectors"], stdin: path)
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(followed.stdout, try runCLI(["timeline", path, "--no-dissectors"]).stdout)
        XCTAssertTrue(followed.stdout.contains("ATT   Read Response 0x0003 value 68 69"), followed.stdout)
    }

    /// `--keys` with BlueZ's `info` file: the device is its folder's name, the key stored least
    /// significant octet first; the same timeline as `--ltk` gives.
    func testKeysFromABlueZInfoFileDecryptAsTheLTKDoes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-keys-\(getpid())/C0:11:22:33:44:55")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let stored = "BF01FB9D4EF3BC36D874F5394138684C"
        let info = folder.appendingPathComponent("info")
        try Data("[General]\nName=Aurora\n\n[LongTermKey]\nKey=\(stored)\nEDiv=9332\n".utf8).write(to: info)
        let capture = "Captures/le_sniffer_ltk.pcapng"
        let run = try runCLI(["timeline", capture, "--keys", info.path], cwd: packageRoot.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.contains("ll.decrypted: the encryption of LL_ENC_REQ #4 decrypted with \(info.path):5"),
            run.stdout)
        let given = try runCLI(
            ["timeline", capture, "--ltk", "C0:11:22:33:44:55=4C68384139F574D836BCF34E9DFB01BF"], cwd: packageRoot.path)
        XCTAssertEqual(
            run.stdout.replacingOccurrences(of: "\(info.path):5", with: "--ltk 1"), given.stdout)
    }

    func testABadKeyIsAUsageErrorBeforeAnyOutput() throws {
        for (arguments, message) in [
            (["--ltk", "1234"], "--ltk 1234: expected a key of 32 hex digits, found \"1234\""),
            (["--keys", "/nonexistent-keys"], "--keys /nonexistent-keys: cannot open: No such file or directory"),
        ] {
            let run = try runCLI(["timeline", "Captures/le_sniffer_ltk.pcapng"] + arguments, cwd: packageRoot.path)
            XCTAssertEqual(run.status, 2, arguments.joined(separator: " "))
            XCTAssertEqual(run.stdout, "")
            XCTAssertTrue(run.stderr.contains(message), run.stderr)
        }
    }

    func testFormatsListsTheThreeLinkTypes() throws {
        let run = try runCLI(["formats"])
        for link in ["251", "256", "272"] {
            XCTAssertTrue(run.stdout.contains("pcap / pcapng \(link) "), link)
        }
    }

    /// Records 8 and 9 (the response's start, an empty PDU) show in --verbose only; 19 is empty.
    static let expected = #"""
        #1           0.000000 =      - NOTE  dissectors.loaded: none (--no-dissectors): built-in dissectors only
        #1           0.000000 =      - LL    ADV_IND adv_address="C0:11:22:33:44:55 (random)" ad_flags=0x06 local_name=Aurora services=0x180f
        #2           0.001250 =      - LL    SCAN_REQ scan_address=11:22:33:44:55:66 adv_address="C0:11:22:33:44:55 (random)"
        #3           0.002500 =      - LL    SCAN_RSP adv_address="C0:11:22:33:44:55 (random)" company_id=0x004c
        #4           0.003750 =      - LL    CONNECT_IND init_address=11:22:33:44:55:66 adv_address=C0:11:22:33:44:55 adv_address_type=1 access_address=0x50653a9b crc_init=0x123456 win_size=2 win_offset=0 interval_ms=30.00 latency=0 timeout_ms=720 channel_map=ffffffff1f hop=7 sca=0
        #4           0.003750 = 0x0001 HCI   Connected C0:11:22:33:44:55 (LE, we are central) handle 0x0001
        #5           0.005000 < 0x0001 LL    LL_VERSION_IND length=6 version=12 company=0x000f subversion=0x1234
        #6           0.006250 > 0x0001 LL    LL_VERSION_IND length=6 version=12 company=0x000f subversion=0x1234
        #7           0.007500 < 0x0001 ATT   Exchange MTU Request client_rx_mtu=247
        #10          0.011250 > 0x0001 ATT   Exchange MTU Response server_rx_mtu=64 mtu=64
        #11          0.012500 < 0x0001 ATT   Read Request 0x0003
        #12          0.013750 < 0x0001 LL    Retransmission SN 1 length=7
        #13          0.015000 > 0x0001 ATT   Read Response 0x0003 value 68 69
        #14          0.016250 !      - !WARN ll.crc.bad: CRC check failed, expected a valid CRC: packet not decoded
        #15          0.017500 < 0x0001 LL    LL_TERMINATE_IND length=2 reason=0x13 reason_name="Remote User Terminated Connection"
        #15          0.017500 = 0x0001 HCI   Disconnected C0:11:22:33:44:55: Remote User Terminated Connection, opened at #4
        #16          0.018750 =      - LL    CONNECT_IND init_address=11:22:33:44:55:66 adv_address=C0:11:22:33:44:55 adv_address_type=1 access_address=0x71a4c2d8 crc_init=0x123456 win_size=2 win_offset=0 interval_ms=30.00 latency=0 timeout_ms=720 channel_map=ffffffff1f hop=7 sca=0
        #16          0.018750 = 0x0002 HCI   Connected C0:11:22:33:44:55 (LE, we are central) handle 0x0002
        #17          0.020000 < 0x0002 LL    LL_ENC_REQ length=23 rand=1111111111111111 ediv=0x1111 skd=2222222222222222 iv=22222222
        #18          0.021250 > 0x0002 LL    LL_ENC_RSP length=13 skd=3333333333333333 iv=33333333
        #20          0.023750 > 0x0002 LL    LL_START_ENC_REQ length=1
        #21          0.025000 < 0x0002 LL    Encrypted PDU length=5
        #21          0.025000 < 0x0002 !NOTE ll.encrypted: data PDUs encrypted since LL_START_ENC_REQ, expected a key to decrypt them (--ltk, --keys): shown as encrypted
        #22          0.026250 > 0x0002 LL    Encrypted PDU length=5
        #23          0.027500 < 0x0002 LL    Encrypted PDU length=11

        """#
}
