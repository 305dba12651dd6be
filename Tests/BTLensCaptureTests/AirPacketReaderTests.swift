import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

/// Over-the-air LE captures read through libpcap: the sniffer's header into `air`, the packet from
/// its access address on (docs/protocols/capture-formats.md, "pcap and pcapng").
final class AirPacketReaderTests: XCTestCase {
    private func pcap(linkType: UInt32, _ packets: [[UInt8]]) -> [UInt8] {
        var out = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(linkType)
        for p in packets { out += le32(1_700_000_000) + le32(0) + le32(UInt32(p.count)) + le32(UInt32(p.count)) + p }
        return out
    }

    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    private func items(_ bytes: [UInt8]) throws -> [CaptureItem] {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var out: [CaptureItem] = []
        while let item = try reader.next() { out.append(item) }
        return out
    }

    private func records(_ bytes: [UInt8]) throws -> [CaptureRecord] {
        try items(bytes).compactMap { if case .record(let r) = $0 { return r } else { return nil } }
    }

    /// An empty data PDU: access address 0x8edf9233, header 01 00, CRC.
    private let packet: [UInt8] = [0x33, 0x92, 0xdf, 0x8e, 0x01, 0x00, 0x40, 0x10, 0x78]

    func testLinkLayerHasNoHeader() throws {
        let rs = try records(pcap(linkType: 251, [packet]))
        XCTAssertEqual(rs.map(\.kind), [.linkLayer])
        XCTAssertEqual(rs.first.map { Array($0.payload) }, packet)
        XCTAssertEqual(rs.first?.air, AirPacket())
        XCTAssertEqual(rs.first?.headerLength, 16)
    }

    /// 256: RF channel 5 (data channel index 4, Core v5.4 Vol 6 Part B §1.4.1), signal -63, noise, offenses, reference AA, flags 0x0d83: de-whitened, signal
    /// valid, PDU type 3 (peripheral to central), CRC checked and valid.
    func testPseudoHeaderIsReadLittleEndian() throws {
        let header: [UInt8] = [0x05, 0xc1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x83, 0x0d]
        let r = try XCTUnwrap(records(pcap(linkType: 256, [header + packet])).first)
        XCTAssertEqual(Array(r.payload), packet)
        XCTAssertEqual(r.air?.channel, 4)
        XCTAssertEqual([0, 1, 11, 12, 13, 38, 39].map { AirPacket.channelIndex(rf: $0) }, [37, 0, 10, 38, 11, 36, 39])
        XCTAssertEqual(r.air?.signal, -63)
        XCTAssertEqual(r.air?.crc, .valid)
        XCTAssertEqual(r.air?.sender, .peripheral)
        XCTAssertEqual(r.air?.mic, .unchecked)
        // CRC checked, not valid; PDU type 2 (central to peripheral); signal not valid; LE 2M.
        let bad = try XCTUnwrap(records(pcap(linkType: 256, [[0, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 0x45] + packet])).first)
        XCTAssertEqual(bad.air?.crc, .invalid)
        XCTAssertEqual(bad.air?.sender, .central)
        XCTAssertNil(bad.air?.signal)
        XCTAssertEqual(bad.air?.phy, 1)
    }

    /// 272: board id, the UART header of version 2 (payload length LE, version, counter, id) or
    /// version 1 (header length, payload length, version, …), or version 0's 0xBEEF marker; then
    /// the event header: length, flags (CRC OK, central to peripheral), channel, RSSI, counter, delta.
    func testNordicBoardHeaderOfEveryVersion() throws {
        let event: [UInt8] = [0x03, 17, 60, 0x2a, 0x00, 0x10, 0x00, 0x00, 0x00]
        let v2: [UInt8] = [0x00, 19, 0, 2, 0x01, 0x00, 0x06, 10] + event
        let v1: [UInt8] = [0x00, 6, 19, 1, 0x01, 0x00, 0x06, 10] + event
        let v0: [UInt8] = [0xbe, 0xef, 0x06, 0x01, 0x00, 0x00, 0x00, 19] + event
        let rs = try records(pcap(linkType: 272, [v2 + packet, v1 + packet, v0 + packet]))
        XCTAssertEqual(rs.count, 3)
        for r in rs {
            XCTAssertEqual(Array(r.payload), packet)
            XCTAssertEqual(r.air?.channel, 17)
            XCTAssertEqual(r.air?.signal, -60)
            XCTAssertEqual(r.air?.crc, .valid)
            XCTAssertEqual(r.air?.sender, .central)
        }
    }

    func testAShortHeaderIsAProblemNotATrap() throws {
        for (link, header) in [(UInt32(256), 10), (272, 17)] {
            for cut in 0..<header {
                let all = try items(pcap(linkType: link, [Array(repeating: 0, count: cut)]))
                guard case .problem(let p)? = all.first else { return XCTFail("link \(link), \(cut) bytes") }
                XCTAssertEqual(p.diagnostic.id, "capture.air.header_short")
                XCTAssertEqual(
                    p.diagnostic.message, "record 1: LINKTYPE \(link) header needs \(header) bytes, found \(cut)")
            }
        }
    }

    /// The sample sniffer capture written in each link type reads back as written: its packets, and
    /// what each header can say (251 nothing).
    func testTheWriterRoundTripsEveryLinkType() throws {
        let script = SnifferCapture.records()
        for link in [PcapFileWriter.LinkType.leLinkLayer, .leWithPseudoHeader, .nordic] {
            let rs = try records(SnifferCapture.bytes(link))
            XCTAssertEqual(rs.map(\.number), script.map(\.number), "\(link)")
            XCTAssertEqual(rs.map { Array($0.payload) }, script.map { Array($0.payload) }, "\(link)")
            var expected = script.map { link == .leLinkLayer ? AirPacket() : $0.air ?? AirPacket() }
            // 272 gives a data PDU's event counter always (0 when the script gives none).
            if link == .nordic {
                for i in expected.indices where script[i].air?.sender != nil {
                    expected[i].eventCounter = expected[i].eventCounter ?? 0
                }
            }
            XCTAssertEqual(rs.map(\.air), expected, "\(link)")
        }
    }
}
