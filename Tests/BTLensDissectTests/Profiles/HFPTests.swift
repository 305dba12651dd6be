import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

final class HFPTests: XCTestCase {
    private func field(_ m: ProfileMessage, _ name: String) -> FieldValue? {
        m.fields.first { $0.0 == name }?.1
    }

    /// HFP 1.9 §4.2.1.1 (Service Level Connection): AT+BRSF, +BRSF, AT+BAC, and V.250's forms.
    func testATLinesAreNamedWithTheirForm() {
        let brsf = ATCommand.message("AT+BRSF=155")
        XCTAssertEqual(brsf.name, "AT+BRSF")
        XCTAssertEqual(field(brsf, "form"), .string("set"))
        XCTAssertEqual(field(brsf, "arguments"), .string("155"))
        // 155 = bits 0, 1, 3, 4, 7 of the HF's features.
        XCTAssertEqual(
            field(brsf, "features"),
            .string("EC/NR, three-way calling, voice recognition, remote volume control, codec negotiation"))
        let gateway = ATCommand.message("+BRSF: 615")
        XCTAssertEqual(gateway.name, "+BRSF")
        XCTAssertEqual(field(gateway, "kind"), .string("response"))
        // 615 = bits 0, 1, 2, 5, 6, 9 of the AG's features.
        XCTAssertEqual(
            field(gateway, "features"),
            .string(
                "three-way calling, EC/NR, voice recognition, reject a call, enhanced call status, codec negotiation"))
        XCTAssertEqual(field(ATCommand.message("AT+CIND=?"), "form"), .string("test"))
        XCTAssertEqual(field(ATCommand.message("AT+CIND?"), "form"), .string("read"))
        XCTAssertEqual(field(ATCommand.message("AT+CHUP"), "form"), .string("action"))
        let dial = ATCommand.message("ATD1234567;")
        XCTAssertEqual(dial.name, "ATD")
        XCTAssertEqual(field(dial, "arguments"), .string("1234567;"))
        XCTAssertEqual(ATCommand.message("OK").name, "OK")
        XCTAssertEqual(field(ATCommand.message("ERROR"), "kind"), .string("result"))
        XCTAssertEqual(field(ATCommand.message("+CME ERROR: 30"), "error"), .int(30))
        XCTAssertEqual(field(ATCommand.message("AT+BAC=1,2,3"), "codecs"), .string("CVSD, mSBC, LC3-SWB"))
        XCTAssertEqual(field(ATCommand.message("+BCS: 2"), "codec"), .string("mSBC"))
        XCTAssertEqual(field(ATCommand.message("AT+VGS=09"), "gain"), .int(9))
        XCTAssertEqual(field(ATCommand.message("hello"), "kind"), .string("other"))
    }

    func testATDetection() {
        XCTAssertTrue(HFPLayer.looksLikeAT(ArraySlice("AT+BRSF=155\r".utf8)))
        XCTAssertTrue(HFPLayer.looksLikeAT(ArraySlice("\r\n+BRSF: 615\r\n".utf8)))
        XCTAssertTrue(HFPLayer.looksLikeAT(ArraySlice("at+ckpd=200\r".utf8)))
        XCTAssertTrue(HFPLayer.looksLikeAT(ArraySlice("\r\nRING\r\n".utf8)))
        XCTAssertTrue(HFPLayer.looksLikeAT(ArraySlice("OK\r".utf8)))
        // A result code with nothing after it could be any text that starts so.
        XCTAssertFalse(HFPLayer.looksLikeAT(ArraySlice("OK".utf8)))
        XCTAssertFalse(HFPLayer.looksLikeAT(ArraySlice("RINGS\r\n".utf8)))
        XCTAssertFalse(HFPLayer.looksLikeAT([0xff, 0x5a, 0x00, 0x12]))
        XCTAssertFalse(HFPLayer.looksLikeAT(ArraySlice("AT\u{1}".utf8)))
        XCTAssertFalse(HFPLayer.looksLikeAT(ArraySlice("A".utf8)))
    }

    /// The service level connection of HFP 1.9 §4.2.1.1 with codec negotiation (§4.11.3) and the
    /// eSCO link it leads to, split into RFCOMM frames of every size: the same lines each time.
    func testADialogueSplitAtEveryOffsetGivesTheSameLines() throws {
        let dialogue: [(Direction, String)] = [
            (.received, "AT+BRSF=191\r"), (.sent, "\r\n+BRSF: 871\r\n\r\nOK\r\n"),
            (.received, "AT+BAC=1,2\r"), (.sent, "\r\nOK\r\n"), (.sent, "\r\n+BCS: 2\r\n"),
            (.received, "AT+BCS=2\r"), (.sent, "\r\nOK\r\n"),
        ]
        let expected = [
            "AT+BRSF", "+BRSF", "OK", "AT+BAC", "OK", "+BCS", "AT+BCS", "OK", "Audio Connection",
        ]
        for split in 1...12 {
            // Without SDP, the channel is known by its first frame: it must hold "AT" and a character.
            var s = SampleCaptures.hfpSession(dialogue, frameSize: split, sdp: split < 3 || split.isMultiple(of: 2))
            s.eSCOConnected(handle: 0x0006)
            let events = try analyze(s.bytes)
            let messages = events.compactMap { e -> ProfileMessage? in
                guard case .profile(let m) = e.body else { return nil }
                return m
            }
            XCTAssertEqual(messages.map(\.name), expected, "frames of \(split) bytes")
            XCTAssertEqual(messages.last.flatMap { field($0, "codec") }, .string("mSBC"))
            XCTAssertEqual(messages.last.flatMap { field($0, "link_type") }, .string("eSCO"))
            XCTAssertFalse(events.contains { if case .undecoded = $0.body { true } else { false } })
        }
    }

    /// mSBC chosen, then an eSCO link with CVSD's air mode: said; and the link's end is its own
    /// event, not a connection nobody opened.
    func testACodecTheAudioLinkDoesNotCarryIsSaid() throws {
        var s = SampleCaptures.hfpSession(
            [(.sent, "\r\n+BCS: 2\r\n"), (.received, "AT+BCS=2\r")], frameSize: 64, sdp: true)
        let link = s.eSCOConnected(handle: 0x0006, airMode: 0x02)
        let end = s.event(0x05, [0x00, 0x06, 0x00, 0x13])
        let events = try analyze(s.bytes)
        let said = events.compactMap { e -> String? in
            if case .diagnostic(let d) = e.body { return "#\(e.record) \(d.id)" }
            if case .profile(let m) = e.body, m.name.hasPrefix("Audio") { return "#\(e.record) \(m.name)" }
            return nil
        }
        XCTAssertEqual(
            said, ["#\(link) Audio Connection", "#\(link) hfp.codec.mismatch", "#\(end) Audio Disconnection"])
    }

    /// A line that never ends is cut at the bound, said, and what is left at disconnection is undecoded.
    func testALineWithNoTerminatorIsBounded() throws {
        let long = "AT+" + String(repeating: "X", count: HFPLayer.lineLimit + 10)
        let s = SampleCaptures.hfpSession([(.received, long)], frameSize: 100, sdp: true)
        let events = try analyze(s.bytes)
        let ids = events.compactMap { e -> String? in
            guard case .diagnostic(let d) = e.body else { return nil }
            return d.id
        }
        XCTAssertEqual(ids, ["hfp.line.long"])
        let undecoded = events.compactMap { e -> Int? in
            guard case .undecoded(let u) = e.body else { return nil }
            return u.length
        }
        XCTAssertEqual(undecoded, [long.utf8.count - HFPLayer.lineLimit])
    }
}
