import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Keys a pairing over the air gives away: a legacy passkey searched as crackle does, Secure
/// Connections with the debug key; and what is said when a pairing gives nothing away.
final class LinkLayerPairingTests: XCTestCase {
    private func said(_ events: [Event]) -> [String] {
        events.compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id): \($0.message)" } }
    }

    private func attNames(_ events: [Event]) -> [String] {
        events.compactMap { e in
            if case .att(let a) = e.body { return "#\(e.record) \(a.opcode.name)" } else { return nil }
        }
    }

    /// The largest passkey: the whole space searched.
    func testAPasskeyIsFoundAndItsSTKDecrypts() throws {
        let events = try analyze(JustWorksPairing.capture(tk: 999_999))
        let s = said(events)
        XCTAssertTrue(
            s.contains {
                $0
                    == "#7 ll.key.derived: passkey (found by search) pairing: TK found from the Pairing Confirm, STK derived"
            }, "\(s)")
        XCTAssertTrue(
            s.contains(
                "#12 ll.decrypted: the encryption of LL_ENC_REQ #8 decrypted with the STK of passkey (found by search) pairing (#7): every PDU's MIC is checked"
            ),
            "\(s)")
        XCTAssertEqual(attNames(events), ["#18 Read Request", "#19 Read Response"])
    }

    /// A small passkey, and the passkey itself never printed (a shared report keeps it).
    func testASmallPasskeyIsFoundAndNeverPrinted() throws {
        let events = try analyze(JustWorksPairing.capture(tk: 42))
        XCTAssertEqual(attNames(events), ["#18 Read Request", "#19 Read Response"])
        XCTAssertFalse(said(events).contains { $0.contains("42") }, "\(said(events))")
    }

    func testSecureConnectionsWithTheDebugKeyGivesTheLTK() throws {
        let events = try analyze(SecureConnectionsCapture.capture(debugKey: true))
        let s = said(events)
        XCTAssertTrue(
            s.contains { $0.hasPrefix("#10 ll.key.derived: Secure Connections with the debug key: LTK ") }, "\(s)")
        XCTAssertTrue(
            s.contains { $0.contains("decrypted with the LTK of Secure Connections pairing with the debug key (#10)") },
            "\(s)")
        XCTAssertEqual(attNames(events).count, 2)
    }

    /// Without the debug key nothing is derived, and the session is shown encrypted, never decoded.
    func testSecureConnectionsWithoutTheDebugKeyIsSaid() throws {
        let events = try analyze(SecureConnectionsCapture.capture(debugKey: false))
        let s = said(events)
        XCTAssertTrue(
            s.contains(
                "#10 ll.key.not_derived: Secure Connections pairing: expected a side to use the debug key, found none; its LTK is not in the capture (give it with --ltk)"
            ), "\(s)")
        XCTAssertTrue(s.contains { $0.contains("ll.encrypted") }, "\(s)")
        XCTAssertEqual(attNames(events), [])
    }

    /// A confirm value no TK gives (out of band pairing, or a damaged one).
    func testAConfirmNoTKGivesIsSaid() throws {
        var records = PcapFileWriter.records(of: JustWorksPairing.capture(tk: 0))
        // Record 4: the initiator's Pairing Confirm; a bit of its value (before the 3-octet CRC) flipped.
        let last = records[3].payload.endIndex - 4
        records[3].payload[last] ^= 0x01
        var w = PcapFileWriter(link: .nordic, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        let s = said(try analyze(w.bytes))
        XCTAssertTrue(
            s.contains(
                "#7 ll.key.not_derived: expected a TK from 0 to 999999 whose c1 gives the Pairing Confirm, found none (out of band data?): what follows decrypts only with a key given"
            ), "\(s)")
    }
}
