import BTLensCapture
import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// The annotated records of docs/protocols/sniffer-captures.md, read exactly as the page shows them
/// (each CRC checked with tshark: LINKTYPE_BLUETOOTH_LE_LL, _WITH_PHDR, LINKTYPE_NORDIC_BLE), and
/// the headers that lie about their lengths, said and never trusted.
final class SnifferHeaderVectorTests: XCTestCase {
    static let adv = "d6 be 89 8e 40 09 55 44 33 22 11 c0 02 01 06 f3 ee 58"
    static let data = "9b 3a 65 50 06 07 03 00 04 00 0a 03 00 77 d0 e8"
    static let pseudo = "05 c5 a6 00 9b 3a 65 50 17 0d " + data
    static let nordic2 = "00 1a 00 02 2a 00 06 0a 03 04 3b 07 00 96 00 00 00 " + data
    static let nordic3 = "00 1c 00 03 2b 00 02 0a 01 25 3c 00 00 40 42 0f 00 " + adv

    static func bytes(_ hex: String) -> [UInt8] { hex.split(separator: " ").compactMap { UInt8($0, radix: 16) } }

    private func items(_ link: UInt32, _ records: [[UInt8]]) throws -> [CaptureItem] {
        var out = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(link)
        for p in records { out += le32(1_700_000_000) + le32(0) + le32(UInt32(p.count)) + le32(UInt32(p.count)) + p }
        var reader = try CaptureFormat.open(MemorySource(out))
        var items: [CaptureItem] = []
        while let item = try reader.next() { items.append(item) }
        return items
    }

    private func record(_ link: UInt32, _ hex: String) throws -> CaptureRecord {
        let all = try items(link, [Self.bytes(hex)])
        XCTAssertEqual(all.count, 1, "\(all)")
        guard case .record(let r)? = all.first else { throw XCTSkip("no record") }
        return r
    }

    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    func testThePageShowsEachVectorUnchanged() throws {
        let page = try String(
            contentsOf: packageRoot.appendingPathComponent("docs/protocols/sniffer-captures.md"), encoding: .utf8)
        for hex in [Self.adv, Self.pseudo, Self.nordic2, Self.nordic3] {
            XCTAssertTrue(page.contains("```\n\(hex)\n```"), hex)
        }
    }

    func testLinkType251IsThePacketAlone() throws {
        let r = try record(251, Self.adv)
        XCTAssertEqual(Array(r.payload), Self.bytes(Self.adv))
        XCTAssertEqual(r.air, AirPacket())
    }

    /// RF 5 is data channel 4; −59 dBm; flags 0x0D17: PDU type 2, CRC checked and valid, LE 1M.
    func testLinkType256PseudoHeader() throws {
        let r = try record(256, Self.pseudo)
        XCTAssertEqual(Array(r.payload), Self.bytes(Self.data))
        var expected = AirPacket()
        (expected.channel, expected.signal, expected.crc, expected.sender) = (4, -59, .valid, .central)
        XCTAssertEqual(r.air, expected)
    }

    /// Version 2, EVENT_PACKET of a data PDU: flags 0x03, channel 4, RSSI 59, event counter 7.
    func testLinkType272Version2DataPacket() throws {
        let r = try record(272, Self.nordic2)
        XCTAssertEqual(Array(r.payload), Self.bytes(Self.data))
        var expected = AirPacket()
        (expected.channel, expected.signal, expected.crc, expected.sender) = (4, -59, .valid, .central)
        expected.eventCounter = 7
        XCTAssertEqual(r.air, expected)
    }

    /// Version 3, EVENT_PACKET_ADVERTISING: no direction, and bits 1–3 are no MIC (AUX type, address resolved).
    func testLinkType272Version3AdvertisingPacket() throws {
        let r = try record(272, Self.nordic3)
        XCTAssertEqual(Array(r.payload), Self.bytes(Self.adv))
        var expected = AirPacket()
        (expected.channel, expected.signal, expected.crc) = (37, -60, .valid)
        XCTAssertEqual(r.air, expected)
        // Flags 0x0f on an advertising packet: CRC OK, AUX type 3, address resolved; still no MIC.
        var flagged = Self.bytes(Self.nordic3)
        flagged[8] = 0x0f
        guard case .record(let f)? = try items(272, [flagged]).first else { return XCTFail("no record") }
        XCTAssertEqual(f.air, expected)
    }

    /// Before version 3 the access address tells advertising from data: flags 0x0f on an ADV_IND
    /// say no direction and no MIC; on a data PDU, central to peripheral, MIC checked and OK.
    func testLinkType272Version2TellsPacketsApartByAccessAddress() throws {
        var adv = Self.bytes("00 1c 00 02 2b 00 06 0a 0f 25 3c 00 00 40 42 0f 00 " + Self.adv)
        guard case .record(let a)? = try items(272, [adv]).first else { return XCTFail("no record") }
        XCTAssertNil(a.air?.sender)
        XCTAssertEqual(a.air?.mic, .unchecked)
        adv.replaceSubrange(17..., with: Self.bytes(Self.data) + [0, 0])
        guard case .record(let d)? = try items(272, [adv]).first else { return XCTFail("no record") }
        XCTAssertEqual(d.air?.sender, .central)
        XCTAssertEqual(d.air?.mic, .valid)
    }

    /// Lengths that lie: the record is read after the 17 fixed bytes, and each lie said after it.
    func testNordicLengthsThatLieAreSaid() throws {
        var lying = Self.bytes(Self.nordic2)
        lying[1] = 0xff  // payload length 255
        lying[7] = 12  // event header length
        lying[3] = 9  // version 9
        let all = try items(272, [lying])
        guard case .record(let r)? = all.first else { return XCTFail("no record") }
        XCTAssertEqual(Array(r.payload), Self.bytes(Self.data))
        let messages = all.dropFirst().compactMap { item -> String? in
            guard case .problem(let p) = item, p.diagnostic.id == "capture.air.header_mismatch" else { return nil }
            return p.diagnostic.message
        }
        XCTAssertEqual(
            messages,
            [
                "record 1: nRF Sniffer header says 255 bytes follow it, expected the record's 26",
                "record 1: nRF Sniffer event header length 12, expected 10: read as 10",
                "record 1: nRF Sniffer protocol version 9, expected at most 3: read as 3",
            ])
        // Version 1's own header length.
        let v1 = Self.bytes("00 07 1a 01 2a 00 06 0a 03 04 3b 07 00 96 00 00 00 " + Self.data)
        let v1Items = try items(272, [v1])
        XCTAssertEqual(v1Items.count, 2)
        guard case .problem(let p)? = v1Items.last else { return XCTFail("no problem") }
        XCTAssertEqual(p.diagnostic.message, "record 1: nRF Sniffer UART header length 7, expected 6: read as 6")
    }
}
