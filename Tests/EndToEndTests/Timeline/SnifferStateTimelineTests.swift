import BTLensTestSupport
import Foundation
import XCTest

/// The link layer's state through the CLI (nRF Sniffer captures, LINKTYPE 272): a name split over
/// an advertising chain, a chain's missing part, PDUs missed, a connection lost to silence.
final class SnifferStateTimelineTests: XCTestCase {
    private func timeline(_ capture: AirCapture) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-llstate-\(getpid()).pcap")
        try Data(capture.bytes()).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let run = try runCLI(["timeline", url.path, "--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout
    }

    /// A type 7 payload: extended header with AdvA (optional), ADI 0x1001, AuxPtr to `aux` (channel,
    /// 30 µs units); then AdvData (Core v5.4 Vol 6 Part B §2.3.4).
    private static func ext(advA: Bool, aux: (UInt8, UInt8)?, _ data: [UInt8]) -> [UInt8] {
        var fields: [UInt8] = advA ? SnifferCapture.peripheral.wire : []
        fields += [0x01, 0x10]
        if let (channel, offset) = aux { fields += [channel, offset, 0] }
        let flags: UInt8 = (advA ? 0x01 : 0) | 0x08 | (aux == nil ? 0 : 0x10)
        return [UInt8(fields.count + 1), flags] + fields + data
    }

    func testChainsMissedPDUsAndALostConnection() throws {
        let aa: UInt32 = 0x5065_3a9b
        let name = Array("Aurora Headset".utf8)
        var a = AirCapture()
        // A name split over two parts, 3 ms apart (100 × 30 µs); then a chain whose part never comes.
        a.advertising(
            7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06, 15, 0x09] + name.prefix(7)), channel: 5, at: 0)
        a.advertising(7, Self.ext(advA: false, aux: nil, Array(name.suffix(7))), channel: 20, at: 3000)
        a.advertising(7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06]), channel: 5, at: 100_000)
        a.connect(aa, timeout: 50, at: 200_000)
        a.data(aa, .central, llid: 3, sn: 0, nesn: 0, [0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12], event: 0, at: 201_250)
        // The peripheral's reply is not heard: the central's next SN says it was sent.
        a.data(aa, .central, llid: 3, sn: 1, nesn: 1, [0x12], event: 1, at: 231_250)
        a.data(aa, .peripheral, llid: 3, sn: 1, nesn: 0, [0x13], event: 1, at: 231_400)
        // Events 2–4 not heard; then 600 ms of silence, past the 500 ms supervision timeout.
        a.data(aa, .central, llid: 1, sn: 0, nesn: 0, event: 5, at: 351_250)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 951_250)
        XCTAssertEqual(try timeline(a), Self.expected)
    }

    /// #2 joins the name #1 began; #3's chain part never comes; #6 shows #5's reply missed, #8 events
    /// skipped; #9, 600 ms after #8, shows the connection lost at #8 + 500 ms.
    static let expected = #"""
        #1           0.000000 =      - NOTE  dissectors.loaded: none (--no-dissectors): built-in dissectors only
        #1           0.000000 =      - LL    AUX_ADV_IND adv_mode=0 adv_address="C0:11:22:33:44:55 (random)" adi_did=1 adi_sid=1 aux_channel=20 aux_phy=0 ad_flags=0x06
        #2           0.003000 =      - LL    AUX_CHAIN_IND adv_mode=0 adi_did=1 adi_sid=1 chain_record=1 chain_by="ADI, channel, time" chain_parts=2 chain_bytes=19 ad_flags=0x06 local_name="Aurora Headset"
        #3           0.100000 =      - LL    AUX_ADV_IND adv_mode=0 adv_address="C0:11:22:33:44:55 (random)" adi_did=1 adi_sid=1 aux_channel=20 aux_phy=0 ad_flags=0x06
        #4           0.200000 !      - !WARN ll.aux.chain.missing: expected AUX_CHAIN_IND on channel 20 where #3's AuxPtr points, found none before #4: the chain begun at #3 ends incomplete after 1 part, 3 bytes
        #4           0.200000 =      - LL    CONNECT_IND init_address=11:22:33:44:55:66 adv_address=C0:11:22:33:44:55 adv_address_type=1 access_address=0x50653a9b crc_init=0x123456 win_size=2 win_offset=0 interval_ms=30.00 latency=0 timeout_ms=500 channel_map=ffffffff1f hop=7 sca=0
        #4           0.200000 = 0x0001 HCI   Connected C0:11:22:33:44:55 (LE, we are central) handle 0x0001
        #5           0.201250 < 0x0001 LL    LL_VERSION_IND length=6 version=12 company=0x000f subversion=0x1234
        #6           0.231250 < 0x0001 !WARN ll.packets.missed: expected the central's last SN repeated until a peripheral PDU acknowledged it, found SN 1 with none heard: a peripheral PDU missed between #5 and #6
        #6           0.231250 < 0x0001 LL    LL_PING_REQ length=1
        #7           0.231400 > 0x0001 LL    LL_PING_RSP length=1
        #8           0.351250 < 0x0001 !WARN ll.packets.missed: expected connection event 2, found 5: 3 connection events missed between #7 and #8
        #9           0.951250 ! 0x0001 !NOTE ll.connection.lost: expected a PDU within the supervision timeout (500 ms) after #8, found none before #9: the connection is taken as lost 500 ms after #8 (inferred from what the sniffer heard)
        #9           0.851250 ! 0x0001 !WARN hci.disconnect.timeout: 0x0001 lost: Connection Timeout; no traffic was captured on it
        #9           0.851250 ! 0x0001 !NOTE gatt.discovery.none: 0x0001 closed (Connection Timeout) before any ATT PDU: the app never reached discovery
        #9           0.851250 = 0x0001 HCI   Disconnected C0:11:22:33:44:55: Connection Timeout, opened at #4
        #9           0.951250 =      - LL    ADV_IND adv_address="C0:11:22:33:44:55 (random)"

        """#
}
