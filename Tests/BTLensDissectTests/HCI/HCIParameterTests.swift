import BTLensCore
import XCTest

@testable import BTLensDissect

/// Hex vectors for the parameters of HCI commands, events and returns (Core Specification, Vol 4,
/// Part E, §7), each field as the JSONL writes it: `key=value`.
final class HCIParameterTests: XCTestCase {
    func command(_ hex: String) -> HCIDecoded<HCICommandInfo>? {
        HCIDecoder.command((Hex.bytes(hex) ?? [])[...], truncated: false)
    }

    func event(_ hex: String) -> HCIDecoded<HCIEventInfo>? {
        HCIDecoder.event((Hex.bytes(hex) ?? [])[...], truncated: false)
    }

    func testLEConnectionUpdateGivesIntervalsInMillisecondsBesideTheirCounts() {
        // §7.8.18: handle 0x0040, interval 24 to 40 (×1.25 ms), latency 0, timeout 500 (×10 ms),
        // CE lengths 0 and 0x0010 (×0.625 ms).
        let d = command("13 20 0e 40 00 18 00 28 00 00 00 f4 01 00 00 10 00")
        XCTAssertEqual(
            shown(d?.info.fields),
            [
                "handle=64", "interval_min=24", "interval_min_ms=30.00", "interval_max=40", "interval_max_ms=50.00",
                "latency=0", "timeout=500", "timeout_ms=5000", "min_ce_length=0", "min_ce_length_ms=0.000",
                "max_ce_length=16", "max_ce_length_ms=10.000",
            ])
        XCTAssertEqual(d?.diagnostics.count, 0)
    }

    func testLECreateConnectionGivesWhatThePhoneAskedFor() {
        // §7.8.12: scan interval 0x0060 and window 0x0030 (×0.625 ms), no filter accept list, a random
        // peer address, own public address, interval 24 to 40 (×1.25 ms), latency 0, timeout 500
        // (×10 ms), CE lengths 0.
        let d = command("0d 20 19 60 00 30 00 00 01 55 44 33 22 11 c0 00 18 00 28 00 00 00 f4 01 00 00 00 00")
        XCTAssertEqual(
            shown(d?.info.fields),
            [
                "scan_interval=96", "scan_interval_ms=60.000", "scan_window=48", "scan_window_ms=30.000",
                "initiator_filter_policy=0", "address_type=1", "address=C0:11:22:33:44:55", "own_address_type=0",
                "interval_min=24", "interval_min_ms=30.00", "interval_max=40", "interval_max_ms=50.00", "latency=0",
                "timeout=500", "timeout_ms=5000", "min_ce_length=0", "min_ce_length_ms=0.000", "max_ce_length=0",
                "max_ce_length_ms=0.000",
            ])
        XCTAssertEqual(d?.diagnostics.count, 0)
        guard case .hostConnects(let address) = d?.effect else { return XCTFail("\(String(describing: d?.effect))") }
        XCTAssertEqual(address.description, "C0:11:22:33:44:55")
    }

    /// Commands whose parameters were named but not read (issue 46): every byte is now shown.
    func testPathCompensationAndDataPathCommands() {
        // §7.8.76 LE Write RF Path Compensation: TX −1.5 dB, RX +2.0 dB.
        XCTAssertEqual(
            shown(command("4d 20 04 f1 ff 14 00")?.info.fields),
            ["rf_tx_path_compensation=-15", "rf_rx_path_compensation=20"])
        // Configure Data Path (§7.3): input (0), path 1, 2 bytes of the vendor's configuration.
        XCTAssertEqual(
            shown(command("83 0c 05 00 01 02 aa bb")?.info.fields),
            ["data_path_direction=0", "data_path_id=1", "vendor_specific_config=aabb"])
    }

    func testConnectionManagementAndEncryptionCommands() {
        // §7.1.16 Set Connection Encryption: handle 0x000b, enable.
        XCTAssertEqual(shown(command("13 04 03 0b 00 01")?.info.fields), ["handle=11", "encryption=1"])
        // §7.1.5 Create Connection: address, packet type 0xcc18, page scan repetition mode R1,
        // reserved, clock offset 0x0000, role switch allowed.
        XCTAssertEqual(
            shown(command("05 04 0d a5 bc 64 6b 18 00 18 cc 01 00 00 00 01")?.info.fields),
            [
                "address=00:18:6B:64:BC:A5", "packet_type=52248", "page_scan_repetition_mode=1",
                "clock_offset=0", "allow_role_switch=1",
            ])
        // §7.1.8 Accept Connection Request: remain peripheral.
        XCTAssertEqual(
            shown(command("09 04 07 a5 bc 64 6b 18 00 01")?.info.fields),
            ["address=00:18:6B:64:BC:A5", "role=peripheral"])
        // §7.1.10 Link Key Request Reply: the key is only said to be there.
        let key = "0b 04 16 a5 bc 64 6b 18 00" + String(repeating: " 11", count: 16)
        XCTAssertEqual(shown(command(key)?.info.fields), ["address=00:18:6B:64:BC:A5", "link_key=present"])
    }

    func testLinkPolicyAndSniffSubrating() {
        // §7.2.10 Write Link Policy Settings: role switch, hold, sniff.
        XCTAssertEqual(shown(command("0d 08 04 0b 00 07 00")?.info.fields), ["handle=11", "link_policy=7"])
        // §7.2.14 Sniff Subrating: latency 0x0320 slots (500 ms), timeouts 0 and 0x0010 (10 ms).
        XCTAssertEqual(
            shown(command("11 08 08 0b 00 20 03 00 00 10 00")?.info.fields),
            [
                "handle=11", "max_latency=800", "max_latency_ms=500.000", "min_remote_timeout=0",
                "min_remote_timeout_ms=0.000", "min_local_timeout=16", "min_local_timeout_ms=10.000",
            ])
    }

    func testModeChangeAndRemoteNameAndVersion() {
        // §7.7.20 Mode Change: success, handle 0x000b, sniff, interval 0x0320 slots.
        XCTAssertEqual(
            shown(event("14 06 00 0b 00 02 20 03")?.info.fields),
            ["status=Success", "handle=11", "mode=sniff", "interval=800", "interval_ms=500.000"])
        // §7.7.7 Remote Name Request Complete: the name, then zeros to 248 bytes.
        let name = Array("LG HBS730".utf8) + [UInt8](repeating: 0, count: 248 - 9)
        let complete = HCIDecoder.event(
            ([0x07, 0xff, 0x00, 0xa5, 0xbc, 0x64, 0x6b, 0x18, 0x00] + name)[...], truncated: false)
        XCTAssertEqual(
            shown(complete?.info.fields), ["status=Success", "address=00:18:6B:64:BC:A5", "remote_name=LG HBS730"])
        XCTAssertEqual(complete?.diagnostics.count, 0)
        // §7.7.12 Read Remote Version Information Complete: LMP 6, Broadcom (0x000f), subversion 0x420e.
        XCTAssertEqual(
            shown(event("0c 08 00 0b 00 06 0f 00 0e 42")?.info.fields),
            [
                "status=Success", "handle=11", "lmp_version=6", "company_id=15", "company=Broadcom",
                "lmp_subversion=16910",
            ])
    }

    func testCommandCompleteReturnParameters() {
        // §7.4.1 Read Local Version Information: HCI 0x08, subversion 0, LMP 0x08, Qualcomm, 2003.
        XCTAssertEqual(
            shown(event("0e 0c 01 01 10 00 08 00 00 08 1d 00 d3 07")?.info.fields),
            [
                "command=Read Local Version Information", "opcode=4097", "status=Success", "hci_version=8",
                "hci_subversion=0", "lmp_version=8", "company_id=29", "company=Qualcomm", "lmp_subversion=2003",
            ])
        // §7.4.5 Read Buffer Size: ACL 1024 × 7, SCO 50 × 8.
        XCTAssertEqual(
            shown(event("0e 0b 01 05 10 00 00 04 32 07 00 08 00")?.info.fields).suffix(4),
            ["acl_packet_length=1024", "sco_packet_length=50", "acl_packets=7", "sco_packets=8"])
        // A failed command returns only its status (§4.5): nothing more is read.
        XCTAssertEqual(shown(event("0e 04 01 09 10 0c")?.info.fields).last, "status=Command Disallowed")
        // §7.8.74 LE Read Transmit Power: −20 to +10 dBm.
        XCTAssertEqual(
            shown(event("0e 06 01 4b 20 00 ec 0a")?.info.fields).suffix(2), ["min_tx_power=-20", "max_tx_power=10"])
        // §7.8.75 LE Read RF Path Compensation: TX −1.5 dB, RX +2.0 dB (0.1 dB units, signed).
        XCTAssertEqual(
            shown(event("0e 08 01 4c 20 00 f1 ff 14 00")?.info.fields).suffix(2),
            ["rf_tx_path_compensation=-15", "rf_rx_path_compensation=20"])
        // §7.8.16 LE Rand: the random number is only said to be there.
        XCTAssertEqual(
            shown(event("0e 0c 01 18 20 00 f2 e3 13 e3 09 18 e0 81")?.info.fields).last, "random_number=present")
    }

    func testAParameterCutShortKeepsTheFieldsBeforeIt() {
        // Mode Change without its interval's second byte.
        let d = event("14 05 00 0b 00 02 20")
        XCTAssertEqual(shown(d?.info.fields), ["status=Success", "handle=11", "mode=sniff"])
        XCTAssertEqual(d?.diagnostics.map(\.id), ["hci.malformed"])
    }

    func testLEAdvertisingReportListsEachReportsParameters() {
        // §7.7.65.2: one report, ADV_IND (0), public address, 3 bytes of data (flags 0x06), RSSI -60.
        let d = event("3e 0f 02 01 00 00 33 22 11 cc bb aa 03 02 01 06 c4")
        XCTAssertEqual(
            shown(d?.info.fields),
            [
                "reports=1", "addresses=AA:BB:CC:11:22:33", "address_types=0", "event_types=0", "rssi_values=-60",
                "advertising_data=020106",
            ])
    }

    func testVendorCommandNamesThatArePublic() {
        // docs/protocols/vendor-hci.md: Android's and Broadcom's; another stays a number.
        XCTAssertEqual(HCIOpcode(rawValue: 0xfd57).name, "Android LE Advertising Packet Content Filter")
        XCTAssertEqual(HCIOpcode(rawValue: 0xfc4c).description, "Broadcom Write RAM (0xfc4c)")
        XCTAssertEqual(HCIOpcode(rawValue: 0xfce9).name, "Vendor (0xfce9)")
    }

    func testVendorParametersAreCountedAsNotDecoded() {
        // §5.4.1: OGF 0x3F is the vendor's; its parameters are nobody's to read.
        XCTAssertEqual(command("57 fd 03 01 02 03")?.info.vendorBytes, 3)
        XCTAssertEqual(command("13 04 03 0b 00 01")?.info.vendorBytes, 0)
        // A vendor command's completion: after the status, what it returns is the vendor's.
        XCTAssertEqual(event("0e 09 01 53 fd 00 01 02 03 04 05")?.info.vendorBytes, 5)
        XCTAssertEqual(event("0e 04 01 03 0c 00")?.info.vendorBytes, 0)
        // §7.7.74 Vendor event, and a code the specification does not define.
        XCTAssertEqual(event("ff 03 01 02 03")?.info.vendorBytes, 3)
        XCTAssertEqual(event("5f 02 01 02")?.info.vendorBytes, 2)
        // BTstack's events are read: none of theirs is the vendor's.
        XCTAssertEqual(event("70 0f 00 a5 bc 64 6b 18 00 0b 00 03 00 40 00 41 00")?.info.vendorBytes, 0)
    }

    func testBTstackDaemonEvents() {
        // BTstack's L2CAP Channel Opened (docs/protocols/vendor-hci.md): status, address, handle, PSM,
        // local and remote CIDs.
        let d = event("70 0f 00 a5 bc 64 6b 18 00 0b 00 03 00 40 00 41 00")
        XCTAssertEqual(d?.info.name, "BTstack L2CAP Channel Opened")
        XCTAssertEqual(
            shown(d?.info.fields),
            ["status=Success", "address=00:18:6B:64:BC:A5", "handle=11", "psm=3", "local_cid=64", "remote_cid=65"])
        // BTstack State: its length byte says 0, so nothing is read and nothing is malformed.
        XCTAssertEqual(event("60 00")?.diagnostics.count, 0)
    }
}
