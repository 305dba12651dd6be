import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// PDUs the sniffer did not hear (Core v5.4 Vol 6 Part B §4.5.9 SN/NESN, §4.5.1 the event counter
/// in the nRF Sniffer's header): said as `ll.packets.missed`, never taken for retransmissions.
final class LinkLayerMissedTests: XCTestCase {
    static let aa: UInt32 = 0x5065_3a9b
    static let version: [UInt8] = [0x0c, 0x0c, 0x0f, 0x00, 0x34, 0x12]

    /// Each diagnostic as "#record id: message".
    static func said(_ capture: AirCapture, _ link: PcapFileWriter.LinkType = .nordic) throws -> [String] {
        try analyze(capture.bytes(link)).compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id): \($0.message)" } }
    }

    /// The central's SN 1 after its SN 0 that no peripheral PDU heard acknowledged: the peripheral's
    /// reply (SN 0, NESN 1) was missed. The PDU is new, decoded, not a retransmission.
    func testANewSNWithNoAcknowledgementHeard() throws {
        var a = AirCapture()
        a.connect(Self.aa, at: 0)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.version, at: 1250)
        a.data(Self.aa, .central, llid: 3, sn: 1, nesn: 1, [0x12], at: 31250)  // LL_PING_REQ
        XCTAssertEqual(
            try Self.said(a),
            [
                "#3 ll.packets.missed: expected the central's last SN repeated until a peripheral PDU acknowledged it, found SN 1 with none heard: a peripheral PDU missed between #2 and #3"
            ])
        let names = try analyze(a.bytes()).compactMap { e -> String? in
            if case .profile(let m) = e.body { m.name } else { nil }
        }
        XCTAssertEqual(names, ["CONNECT_IND", "LL_VERSION_IND", "LL_PING_REQ"])
    }

    /// The peripheral's NESN turns to 0: it accepted a central PDU with SN 1 the sniffer never heard.
    /// Its SN 0, never acknowledged, is sent again: that stays a retransmission.
    func testANESNAcknowledgingAPDUNeverHeard() throws {
        var a = AirCapture()
        a.connect(Self.aa, at: 0)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.version, at: 1250)
        a.data(Self.aa, .peripheral, llid: 3, sn: 0, nesn: 1, Self.version, at: 1500)
        a.data(Self.aa, .peripheral, llid: 3, sn: 0, nesn: 0, Self.version, at: 31500)
        XCTAssertEqual(
            try Self.said(a),
            [
                "#4 ll.packets.missed: expected the peripheral's NESN unchanged with no new central PDU heard, found NESN 0 acknowledging one: a central PDU missed between #3 and #4"
            ])
        let last = try analyze(a.bytes()).last { if case .profile = $0.body { true } else { false } }
        guard case .profile(let m)? = last?.body else { return XCTFail() }
        XCTAssertEqual(m.name, "Retransmission")
    }

    /// Events 7 and 8 skipped by the counter: 2 missed, whatever the sequence numbers say.
    func testConnectionEventsSkipped() throws {
        var a = AirCapture()
        a.connect(Self.aa, at: 0)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, event: 6, at: 1250)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, event: 6, at: 1500)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 9, at: 91250)
        XCTAssertEqual(
            try Self.said(a),
            [
                "#4 ll.packets.missed: expected connection event 7, found 9: 2 connection events missed between #3 and #4"
            ])
        let fields = try analyze(a.bytes()).compactMap(\.diagnostic).first?.fields.map { "\($0.0)" }
        XCTAssertEqual(fields, ["count", "after_record"])
    }

    /// A counter that goes back, or wraps by more than half its range, is no gap: said, counted from.
    func testACounterThatGoesBack() throws {
        var a = AirCapture()
        a.connect(Self.aa, at: 0)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, event: 300, at: 1250)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, event: 3, at: 1500)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 4, at: 31250)
        a.data(Self.aa, .peripheral, llid: 1, sn: 1, nesn: 0, event: 0xffff, at: 31500)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, event: 0, at: 61250)  // wraps: the next event
        XCTAssertEqual(
            try Self.said(a),
            [
                "#3 ll.event_counter.back: expected connection event 300 or later after #2, found 3: counting again from it",
                "#5 ll.event_counter.back: expected connection event 4 or later after #4, found 65535: counting again from it",
            ])
    }

    /// Sides the capture does not say (LINKTYPE 251) are guessed in turns: no PDU is said missed.
    func testGuessedSidesSayNothingMissed() throws {
        var a = AirCapture()
        a.connect(Self.aa, at: 0)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.version, at: 1250)
        a.data(Self.aa, .central, llid: 3, sn: 1, nesn: 1, [0x12], at: 31250)
        XCTAssertEqual(try Self.said(a, .leLinkLayer), [])
    }
}
