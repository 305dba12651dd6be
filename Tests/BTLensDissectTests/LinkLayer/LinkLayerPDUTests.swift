import BTLensCore
import XCTest

@testable import BTLensDissect

/// The LE link layer's PDUs as hex vectors (Core v5.4 Vol 6 Part B), every short form included.
final class LinkLayerPDUTests: XCTestCase {
    private func field(_ m: ProfileMessage, _ name: String) -> FieldValue? { m.fields.first { $0.0 == name }?.1 }

    private func bytes(_ hex: String) -> ArraySlice<UInt8> {
        (Hex.bytes(hex.replacingOccurrences(of: " ", with: "")) ?? [])[...]
    }

    /// §2.3.1.1 ADV_IND: header 0x40 (TxAdd random), length 17; AdvA; AD structures (Vol 3 Part C §11):
    /// Flags 0x06, Complete Local Name "Aurora", 16-bit UUIDs 0x180F.
    func testAdvIndWithItsADStructures() throws {
        let pdu = bytes("40 15 554433 2211c0 020106 0709 4175726f7261 03030f18")
        let adv = try LLAdvertisingPDU.decode(pdu)
        XCTAssertEqual(adv.message.name, "ADV_IND")
        XCTAssertEqual(field(adv.message, "adv_address"), .string("C0:11:22:33:44:55 (random)"))
        XCTAssertEqual(field(adv.message, "ad_flags"), .hex(6, digits: 2))
        XCTAssertEqual(field(adv.message, "local_name"), .string("Aurora"))
        XCTAssertEqual(field(adv.message, "services"), .string("0x180f"))
        XCTAssertNil(adv.connect)
    }

    /// §2.3.2.1 SCAN_REQ (ScanA, AdvA) and §2.3.2.2 SCAN_RSP with Manufacturer Specific Data (0x004C).
    func testScanRequestAndResponse() throws {
        let request = try LLAdvertisingPDU.decode(bytes("83 0c 665544332211 554433 2211c0"))
        XCTAssertEqual(request.message.name, "SCAN_REQ")
        XCTAssertEqual(field(request.message, "scan_address"), .string("11:22:33:44:55:66"))
        XCTAssertEqual(field(request.message, "adv_address"), .string("C0:11:22:33:44:55 (random)"))
        let response = try LLAdvertisingPDU.decode(bytes("44 0c 554433 2211c0 05ff4c000102"))
        XCTAssertEqual(response.message.name, "SCAN_RSP")
        XCTAssertEqual(field(response.message, "company_id"), .hex(0x004c, digits: 4))
    }

    /// §2.3.3.1 CONNECT_IND: InitA, AdvA, LLData: AA 0x50653a9b, CRCInit 0x123456, WinSize 2,
    /// WinOffset 0, Interval 24 (30 ms), Latency 0, Timeout 72 (720 ms), ChM, Hop 7, SCA 0.
    func testConnectIndAndItsLLData() throws {
        let pdu = bytes("85 22 665544332211 554433 2211c0 9b3a6550 563412 02 0000 1800 0000 4800 ffffffff1f 07")
        let adv = try LLAdvertisingPDU.decode(pdu)
        XCTAssertEqual(adv.message.name, "CONNECT_IND")
        let c = try XCTUnwrap(adv.connect)
        XCTAssertEqual(c.accessAddress, 0x5065_3a9b)
        XCTAssertEqual(c.central.description, "11:22:33:44:55:66")
        XCTAssertEqual(c.peripheral.description, "C0:11:22:33:44:55")
        XCTAssertEqual(field(adv.message, "crc_init"), .hex(0x123456, digits: 6))
        XCTAssertEqual(field(adv.message, "interval_ms"), .decimal(3000, scale: 2))
        XCTAssertEqual(field(adv.message, "timeout_ms"), .int(720))
        XCTAssertEqual(field(adv.message, "channel_map"), .bytes([0xff, 0xff, 0xff, 0xff, 0x1f]))
        XCTAssertEqual(field(adv.message, "hop"), .int(7))
        XCTAssertEqual(field(adv.message, "sca"), .int(0))
        // Every cut of it is too short, never a trap.
        for n in 0..<pdu.count { XCTAssertThrowsError(try LLAdvertisingPDU.decode(pdu.prefix(n)), "\(n)") }
    }

    /// §2.3.4 ADV_EXT_IND: extended header length 9, AdvMode 0; flags AdvA | ADI | AuxPtr; ADI DID
    /// 0x123, SID 4; AuxPtr channel 5, LE 2M (PHY 1 in its top 3 bits).
    func testExtendedHeader() throws {
        let adv = try LLAdvertisingPDU.decode(bytes("47 0d 0c 19 554433 2211c0 2341 05 00 20"))
        XCTAssertEqual(adv.message.name, "ADV_EXT_IND")
        XCTAssertEqual(field(adv.message, "adv_address"), .string("C0:11:22:33:44:55 (random)"))
        XCTAssertEqual(field(adv.message, "adi_did"), .int(0x123))
        XCTAssertEqual(field(adv.message, "adi_sid"), .int(4))
        XCTAssertEqual(field(adv.message, "aux_channel"), .int(5))
        XCTAssertEqual(field(adv.message, "aux_phy"), .int(1))
    }

    /// §2.4.2: LL_VERSION_IND (VersNr 0x0c = 5.3, CompId 0x000f, SubVersNr 0x1234), LL_LENGTH_REQ,
    /// LL_TERMINATE_IND (0x13 Remote User Terminated Connection), LL_ENC_REQ, LL_PHY_UPDATE_IND.
    func testControlPDUsByOpcode() throws {
        let (opcode, version) = try LLControlPDU.decode(bytes("0c 0c 0f00 3412"))
        XCTAssertEqual(opcode, 0x0c)
        XCTAssertEqual(version.name, "LL_VERSION_IND")
        XCTAssertEqual(field(version, "company"), .hex(0x000f, digits: 4))
        XCTAssertEqual(field(version, "subversion"), .hex(0x1234, digits: 4))
        let length = try LLControlPDU.decode(bytes("14 fb00 9042 fb00 4808")).1
        XCTAssertEqual(length.name, "LL_LENGTH_REQ")
        XCTAssertEqual(field(length, "max_rx_time"), .int(17040))
        let terminate = try LLControlPDU.decode(bytes("02 13")).1
        XCTAssertEqual(field(terminate, "reason_name"), .string("Remote User Terminated Connection"))
        let enc = try LLControlPDU.decode(bytes("03 1111111111111111 2222 3333333333333333 44444444")).1
        XCTAssertEqual(field(enc, "ediv"), .hex(0x2222, digits: 4))
        let phy = try LLControlPDU.decode(bytes("18 02 02 1000")).1
        XCTAssertEqual(phy.name, "LL_PHY_UPDATE_IND")
        XCTAssertEqual(field(phy, "instant"), .int(16))
        XCTAssertEqual(try LLControlPDU.decode(bytes("7f 01")).1.name, "Unknown (0x7f)")
        for short in ["", "0c 0c 0f00 34", "14 fb00", "02", "03 11", "18 02 02 10"] {
            XCTAssertThrowsError(try LLControlPDU.decode(bytes(short)), short)
        }
    }

    /// §2.4: header LLID 2, NESN 1, SN 0, MD 1 (0x16), length 3; CP set adds the CTEInfo byte.
    func testDataHeader() throws {
        let h = try LLDataHeader(bytes("16 03 aabbcc 000000"))
        XCTAssertEqual([h.llid, h.nesn, h.sn, h.md], [2, 1, 0, 1])
        XCTAssertEqual(Array(h.payload), [0xaa, 0xbb, 0xcc])
        XCTAssertEqual(Array(try LLDataHeader(bytes("21 01 05 ee")).payload), [0xee])
        XCTAssertThrowsError(try LLDataHeader(bytes("02 05 aabb")))
        XCTAssertThrowsError(try LLDataHeader(bytes("02")))
    }
}

extension LinkLayerPDUTests {
    /// §2.3.1.2 ADV_DIRECT_IND (AdvA random, TargetA public) and §2.3.1.3 ADV_NONCONN_IND with a
    /// Shortened Local Name and TX Power Level -4 dBm.
    func testDirectedAndNonConnectableAdvertising() throws {
        let direct = try LLAdvertisingPDU.decode(bytes("41 0c 554433 2211c0 665544332211"))
        XCTAssertEqual(direct.message.name, "ADV_DIRECT_IND")
        XCTAssertEqual(field(direct.message, "target_address"), .string("11:22:33:44:55:66"))
        let beacon = try LLAdvertisingPDU.decode(bytes("42 0d 554433 2211c0 030841 75 020afc"))
        XCTAssertEqual(beacon.message.name, "ADV_NONCONN_IND")
        XCTAssertEqual(field(beacon.message, "local_name"), .string("Au"))
        XCTAssertEqual(field(beacon.message, "tx_power"), .int(-4))
        // An AD structure whose length runs past the data ends the list; what came before stays.
        let cut = try LLAdvertisingPDU.decode(bytes("42 0b 554433 2211c0 020106 0509"))
        XCTAssertEqual(field(cut.message, "ad_flags"), .hex(6, digits: 2))
        XCTAssertNil(field(cut.message, "local_name"))
    }

    /// §2.4.2.1 LL_CONNECTION_UPDATE_IND (WinSize 1, WinOffset 2, Interval 40 = 50 ms, Latency 4,
    /// Timeout 500 = 5 s, Instant 0x0123); §2.4.2.2 LL_CHANNEL_MAP_IND; §2.4.2.21 LL_PHY_REQ;
    /// §2.4.2.18 LL_REJECT_EXT_IND; §2.4.2.8 LL_UNKNOWN_RSP.
    func testConnectionProceduresParameters() throws {
        let update = try LLControlPDU.decode(bytes("00 01 0200 2800 0400 f401 2301")).1
        XCTAssertEqual(update.name, "LL_CONNECTION_UPDATE_IND")
        XCTAssertEqual(field(update, "interval_ms"), .decimal(5000, scale: 2))
        XCTAssertEqual(field(update, "latency"), .int(4))
        XCTAssertEqual(field(update, "timeout_ms"), .int(5000))
        XCTAssertEqual(field(update, "instant"), .int(0x0123))
        let map = try LLControlPDU.decode(bytes("01 ffff00001f 4000")).1
        XCTAssertEqual(map.name, "LL_CHANNEL_MAP_IND")
        XCTAssertEqual(field(map, "channel_map"), .bytes([0xff, 0xff, 0x00, 0x00, 0x1f]))
        XCTAssertEqual(field(map, "instant"), .int(64))
        let phy = try LLControlPDU.decode(bytes("16 02 03")).1
        XCTAssertEqual([field(phy, "tx_phys"), field(phy, "rx_phys")], [.hex(2, digits: 2), .hex(3, digits: 2)])
        let reject = try LLControlPDU.decode(bytes("11 0f 1a")).1
        XCTAssertEqual(field(reject, "reject_opcode"), .hex(0x0f, digits: 2))
        XCTAssertEqual(field(reject, "reason"), .hex(0x1a, digits: 2))
        XCTAssertEqual(field(try LLControlPDU.decode(bytes("07 19")).1, "unknown_type"), .hex(0x19, digits: 2))
        for short in ["00 01 0200 2800 0400 f401 23", "01 ffff00001f 40", "16 02", "11 0f", "07"] {
            XCTAssertThrowsError(try LLControlPDU.decode(bytes(short)), short)
        }
    }
}

extension LinkLayerPDUTests {
    /// §2.3, Table 2.3: on a secondary advertising channel types 3, 5 and 7 are AUX_SCAN_REQ,
    /// AUX_CONNECT_REQ (CONNECT_IND's layout, so it opens a connection) and AUX_ADV_IND.
    func testSecondaryChannelNames() throws {
        let connect = bytes("85 22 665544332211 554433 2211c0 9b3a6550 563412 02 0000 1800 0000 4800 ffffffff1f 07")
        let aux = try LLAdvertisingPDU.decode(connect, secondary: true)
        XCTAssertEqual(aux.message.name, "AUX_CONNECT_REQ")
        XCTAssertEqual(aux.connect?.accessAddress, 0x5065_3a9b)
        XCTAssertEqual(try LLAdvertisingPDU.decode(connect).message.name, "CONNECT_IND")
        let scan = try LLAdvertisingPDU.decode(bytes("83 0c 665544332211 554433 2211c0"), secondary: true)
        XCTAssertEqual(scan.message.name, "AUX_SCAN_REQ")
        let ext = try LLAdvertisingPDU.decode(bytes("47 08 07 01 554433 2211c0"), secondary: true)
        XCTAssertEqual(ext.message.name, "AUX_ADV_IND")
        XCTAssertEqual(field(ext.message, "adv_address"), .string("C0:11:22:33:44:55 (random)"))
    }
}
