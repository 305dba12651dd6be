import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// The sample sniffer capture (`SnifferCapture`) through the analyzer: connections by access
/// address, LL control PDUs, retransmissions, bad CRCs, L2CAP reassembled into ATT, encryption.
final class LinkLayerLayerTests: XCTestCase {
    func testTheSampleCapture() throws {
        let events = try analyze(SnifferCapture.bytes())
        XCTAssertEqual(
            llLines(events),
            [
                "#1 ll ADV_IND", "#2 ll SCAN_REQ", "#3 ll SCAN_RSP", "#4 ll CONNECT_IND", "#4 connection opened",
                "#5 ll LL_VERSION_IND", "#6 ll LL_VERSION_IND", "#7 att Exchange MTU Request",
                "#10 att Exchange MTU Response", "#11 att Read Request", "#12 ll Retransmission",
                "#13 att Read Response", "#14 ! ll.crc.bad", "#15 ll LL_TERMINATE_IND", "#15 connection closed",
                "#16 ll CONNECT_IND", "#16 connection opened", "#17 ll LL_ENC_REQ", "#18 ll LL_ENC_RSP",
                "#20 ll LL_START_ENC_REQ", "#21 ll Encrypted PDU", "#21 ! ll.encrypted", "#22 ll Encrypted PDU",
                "#23 ll Encrypted PDU",
            ])
        let directions = events.filter { if case .att = $0.body { return true } else { return false } }.map(\.direction)
        XCTAssertEqual(directions, [.sent, .received, .sent, .received])
        let handles = Set(
            events.compactMap { if case .connection = $0.body { return $0.connection } else { return nil } })
        XCTAssertEqual(handles, [1, 2])
    }

    /// 256 and 272 say the same of every packet; 251 says nothing, so the damaged packet is decoded
    /// (as an L2CAP continuation nobody started) and the sides are taken in turns.
    func testEveryLinkTypeGivesTheSameTimeline() throws {
        let pseudo = llLines(try analyze(SnifferCapture.bytes(.leWithPseudoHeader)))
        XCTAssertEqual(llLines(try analyze(SnifferCapture.bytes(.nordic))), pseudo)
        let bare = llLines(try analyze(SnifferCapture.bytes(.leLinkLayer)))
        XCTAssertFalse(bare.contains("#14 ! ll.crc.bad"))
        XCTAssertTrue(bare.contains("#7 att Exchange MTU Request"))
    }

    /// Every record of the sample cut at every length: diagnostics, never a trap, and a damaged
    /// PDU is said as malformed (the one heard with a bad CRC is not decoded at all).
    func testEveryCutOfEveryPacketIsSaid() throws {
        for record in SnifferCapture.records() where record.air?.crc == .valid {
            for cut in 0..<record.payload.count - 3 {
                var r = record
                r.payload = r.payload.prefix(cut)
                var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
                w.add(r)
                let ids = try analyze(w.bytes).compactMap(\.diagnostic?.id)
                if cut < 6 { XCTAssertTrue(ids.contains("ll.pdu.malformed"), "#\(record.number) cut \(cut): \(ids)") }
            }
        }
    }

    /// A terminated connection's state is freed. The terminate sent again after it is shown in
    /// `--verbose` on the closed connection, not taken for a new one.
    func testTerminateFreesTheConnection() throws {
        var records = SnifferCapture.records().prefix(15).map { $0 }
        var again = records[14]
        again.number = 16
        records.append(again)
        var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        let events = try analyze(w.bytes).filter { $0.record == 16 }
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.first?.isTop, false)
        XCTAssertEqual(events.first?.connection, 1)
        guard case .profile(let m)? = events.first?.body else { return XCTFail("\(events)") }
        XCTAssertEqual(m.name, "After LL_TERMINATE_IND")
    }
}

extension LinkLayerLayerTests {
    /// 65 access addresses with data and no CONNECT_IND: 64 connections assumed, the 65th refused
    /// with `ll.connection.limit` and not decoded.
    func testConnectionsAreBounded() throws {
        var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
        let template = SnifferCapture.records()[4]
        for i in 0...LinkLayerLayer.connectionLimit {
            var r = template
            r.number = i + 1
            r.payload = (SnifferCapture.le32(0x1000_0000 + UInt32(i)) + Array(r.payload.dropFirst(4)))[...]
            w.add(r)
        }
        let events = try analyze(w.bytes)
        let ids = events.compactMap(\.diagnostic?.id)
        XCTAssertEqual(ids.filter { $0 == "ll.connection.inferred" }.count, LinkLayerLayer.connectionLimit)
        XCTAssertEqual(ids.filter { $0 == "ll.connection.limit" }.count, 1)
        XCTAssertEqual(events.last?.diagnostic?.id, "ll.connection.limit")
    }

    /// Verbose output indents the link layer as HCI: it is the lowest layer of such a capture.
    func testTheLinkLayerIsAtTheBottom() throws {
        let events = try analyze(SnifferCapture.bytes())
        let ll = events.filter { if case .profile = $0.body { return true } else { return false } }
        XCTAssertEqual(Set(ll.map(\.layer)), [.linkLayer])
        XCTAssertEqual(Layer.linkLayer.depth, 0)
    }
}

extension LinkLayerLayerTests {
    /// A snap length that cuts a data PDU is the capture's doing: said once as a truncation, the
    /// PDU not called malformed.
    func testAPacketTheCaptureCutIsNoMalformedPDU() throws {
        let le32 = SnifferCapture.le32
        var bytes = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(16) + le32(256)
        let packet =
            [0x0c, 0xc4, 0, 0, 0, 0, 0, 0, 0x03, 0x0d] + le32(0x5065_3a9b) + [0x02, 0x07, 3, 0, 4, 0, 2, 0xf7, 0]
        bytes += le32(1_700_000_000) + le32(0) + le32(16) + le32(UInt32(packet.count + 3)) + packet.prefix(16)
        let ids = try analyze(bytes).compactMap(\.diagnostic?.id)
        XCTAssertFalse(ids.contains("ll.pdu.malformed"), "\(ids)")
        XCTAssertTrue(ids.contains { $0.hasPrefix("capture.") }, "\(ids)")
    }
}

extension LinkLayerLayerTests {
    /// Bytes that lie: the sample in each link type with 1–4 random bytes changed past the file
    /// header, 2,000 times each (headers, flags, lengths, opcodes, AD structures): diagnostics, never
    /// a trap, and every event at a record of the capture.
    func testRandomlyDamagedCapturesNeverTrap() throws {
        var random = SplitMix(seed: 43)
        for link in [PcapFileWriter.LinkType.leLinkLayer, .leWithPseudoHeader, .nordic] {
            assertDamagedCopiesNeverTrap(SnifferCapture.bytes(link), runs: 2000, &random, "\(link)")
        }
    }
}
