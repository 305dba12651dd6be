import BTLensCapture
import BTLensCore
import XCTest

@testable import BTLensDissect
@testable import BTLensTestSupport

/// A retransmission repeats its PDU byte for byte (Core v5.4 Vol 6 Part B §4.5.9): a PDU with the
/// same unacknowledged SN and other bytes is new, after PDUs the sniffer did not hear. And a
/// peripheral that refuses LL_ENC_REQ fails encryption as HCI's Encryption Change would say.
final class LinkLayerRetransmissionTests: XCTestCase {
    private func capture(_ build: (inout SnifferCapture.Script, inout AirLink) -> Void) -> [UInt8] {
        var s = SnifferCapture.Script()
        let p = SnifferCapture.self
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(p.firstAccessAddress))
        var link = AirLink(p.firstAccessAddress)
        build(&s, &link)
        return SnifferSamples.bytes(s, .leWithPseudoHeader, .pcap(nanoseconds: false))
    }

    /// A whole connection event missed: the peripheral's next PDU has its last SN again, unacknowledged
    /// as far as the sniffer heard, but it is the MTU response, not its LL_VERSION_IND again.
    func testTheSameSNWithOtherBytesIsANewPDU() throws {
        let bytes = capture { s, link in
            link.event(&s, .att([0x02, 0xf7, 0x00]), .control([0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12]))
            link.send(&s, AirLink.central, .empty, heard: false)
            link.send(&s, AirLink.peripheral, .empty, heard: false)
            link.event(&s, nil, .att([0x03, 0x40, 0x00]))
        }
        let events = try analyze(bytes)
        let l = llLines(events)
        XCTAssertTrue(l.contains("#5 att Exchange MTU Response"), "\(l)")
        XCTAssertFalse(l.contains { $0.contains("Retransmission") }, "\(l)")
        let missed = events.compactMap(\.diagnostic).filter { $0.id == "ll.packets.missed" }.map(\.message)
        XCTAssertEqual(
            missed,
            [
                "expected the peripheral's unacknowledged SN 0 PDU again (a retransmission), found other bytes: a new PDU, at least 2 PDUs missed between #4 and #5"
            ])
    }

    /// The same PDU again is still a retransmission.
    func testTheSameBytesAgainAreARetransmission() throws {
        let bytes = capture { s, link in
            link.event(&s, .att([0x02, 0xf7, 0x00]), .control([0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12]))
            s.data(
                SnifferCapture.firstAccessAddress, .peripheral, first: 0x03 | 1 << 2,
                [0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12])
        }
        XCTAssertTrue(llLines(try analyze(bytes)).contains("#4 ll Retransmission"))
    }

    /// LL_REJECT_EXT_IND to LL_ENC_REQ with PIN or Key Missing: the peripheral lost the bond.
    func testARejectedEncryptionRequestIsAFailedEncryption() throws {
        let bytes = capture { s, link in
            link.event(&s, .control(SnifferSamples.sampleRequest), .control([0x11, 0x03, 0x06]))
        }
        let events = try analyze(bytes)
        let failed = events.compactMap(\.diagnostic).filter { $0.id == "hci.encryption.failed" }.map(\.message)
        XCTAssertEqual(failed.count, 1)
        XCTAssertTrue(
            failed.first?.hasPrefix("starting encryption on 0x0001 failed: PIN or Key Missing") ?? false, "\(failed)")
        let reject = events.compactMap { e -> ProfileMessage? in if case .profile(let m) = e.body { m } else { nil } }
            .first { $0.name == "LL_REJECT_EXT_IND" }
        XCTAssertEqual(reject?.fields.first { $0.0 == "reason_name" }?.1, .string("PIN or Key Missing"))
    }

    /// Noise on data channels looks like connections on random access addresses: past the bound, a
    /// CONNECT_IND takes the place of the one heard least recently, and its connection is followed.
    func testACONNECTINDTakesThePlaceOfAnAssumedConnection() throws {
        var a = AirCapture()
        for i in 0..<(LinkLayerLayer.connectionLimit + 2) {
            a.data(UInt32(0x1000_0000 + i), .central, llid: 1, sn: 0, nesn: 0, at: Int64(i) * 1000)
        }
        let aa = SnifferCapture.firstAccessAddress
        a.connect(aa, at: 100_000)
        a.data(aa, .central, llid: 2, sn: 0, nesn: 0, [3, 0, 4, 0, 0x0a, 0x03, 0x00], at: 101_250)
        let events = try analyze(a.bytes(.nordic))
        let limits = events.compactMap(\.diagnostic).filter { $0.id == "ll.connection.limit" }.map(\.message)
        XCTAssertEqual(limits.count, 3, "\(limits)")
        XCTAssertEqual(
            limits.last,
            "at most 64 connections followed at once: the one assumed on access address 0x10000000, last heard at #1, is no longer followed, for this CONNECT_IND's"
        )
        XCTAssertTrue(llLines(events).contains("#68 att Read Request"), "\(llLines(events).suffix(4))")
    }

    /// Six encrypted PDUs of the peripheral's not heard: past the window of 4 the first PDU heard
    /// fails, the window widens, and the next decrypts, the gap said without the failed one.
    func testDecryptionCatchesUpAfterALongGap() throws {
        let key = LinkLayerKey(address: nil, ltk: SnifferSamples.sampleLTK, source: "--ltk 1")
        let bytes = capture { s, link in
            SnifferSamples.startEncryption(
                &s, &link, ltk: SnifferSamples.sampleLTK, SnifferSamples.sampleRequest, SnifferSamples.sampleResponse)
            for i in 0..<6 {
                link.send(&s, AirLink.central, .empty, heard: false)
                link.send(&s, AirLink.peripheral, .att([0x1b, 0x0f, 0x00, UInt8(i)]), heard: false)
            }
            link.event(&s, nil, .att([0x1b, 0x0f, 0x00, 0x06]))
            link.event(&s, nil, .att([0x1b, 0x0f, 0x00, 0x07]))
        }
        let events = try analyze(bytes, keys: [key])
        let said = events.compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id): \($0.message)" } }
            .filter { !$0.contains("ll.decrypted") && !$0.contains("ll.packets.missed") }
        XCTAssertEqual(
            said,
            [
                "#9 ll.mic.bad: expected a MIC that checks with the session key at packet counter 1 to 5, found none: PDU not decoded",
                "#11 ll.counter.skipped: expected packet counter 2, found 8: 6 encrypted PDUs the sniffer did not hear",
            ])
        let values = events.compactMap { e -> String? in
            if case .att(let a) = e.body, let v = a.value { return "#\(e.record) \(Array(v))" } else { return nil }
        }
        XCTAssertEqual(values, ["#11 [7]"])
    }
}
