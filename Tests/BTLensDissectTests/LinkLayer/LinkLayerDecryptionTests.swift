import BTLensCapture
import BTLensCore
import BTLensCrypto
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Encrypted connections of the sniffer samples (`SnifferSamples`): keys derived from a Just Works
/// pairing and the LTK it distributed, a key given, paused and restarted; a wrong key, a damaged MIC.
final class LinkLayerDecryptionTests: XCTestCase {
    private func messages(_ events: [Event], _ kind: DiagnosticKind) -> [String] {
        events.compactMap { $0.diagnostic }.filter { $0.kind == kind }.map(\.message)
    }

    private static let given = LinkLayerKey(
        address: SnifferCapture.peripheral, ltk: SnifferSamples.sampleLTK, source: "--ltk 1")

    func testJustWorksPairingGivesAwayTheSTKAndTheLTKItDistributes() throws {
        let events = try analyze(try XCTUnwrap(SnifferSamples.all.first { $0.file.contains("just_works") }).bytes)
        let l = llLines(events)
        for expected in [
            "#7 ! ll.key.derived", "#12 ! ll.decrypted", "#12 ll LL_START_ENC_RSP", "#15 smp Encryption Information",
            "#17 smp Central Identification", "#17 ! ll.key.derived", "#18 att Read Request", "#19 att Read Response",
        ] {
            XCTAssertTrue(l.contains(expected), "\(expected) in \(l)")
        }
        XCTAssertEqual(
            messages(events, LLDiagnostics.keyDerived).first,
            "Just Works (TK 0) pairing: TK found from the Pairing Confirm, STK derived")
        XCTAssertEqual(
            messages(events, LLDiagnostics.decrypted),
            [
                "the encryption of LL_ENC_REQ #8 decrypted with the STK of Just Works (TK 0) pairing (#7): every PDU's MIC is checked",
                "the encryption of LL_ENC_REQ #23 decrypted with the LTK of #17: every PDU's MIC is checked",
            ])
        XCTAssertTrue(l.contains("#29 att Write Request"), "\(l)")
        XCTAssertTrue(l.contains("#32 att Handle Value Notification"), "\(l)")
        XCTAssertFalse(l.contains { $0.contains("Encrypted PDU") || $0.contains("mic") }, "\(l)")
    }

    private var givenKeyCapture: [UInt8] {
        SnifferSamples.all.first { $0.file.contains("ltk") }?.bytes ?? []
    }

    func testAGivenKeyDecryptsAcrossAPauseAndAMissedPDU() throws {
        let events = try analyze(givenKeyCapture, keys: [Self.given])
        let l = llLines(events)
        XCTAssertEqual(
            messages(events, LLDiagnostics.decrypted),
            [
                "the encryption of LL_ENC_REQ #4 decrypted with --ltk 1: every PDU's MIC is checked",
                "the encryption of LL_ENC_REQ #21 decrypted with --ltk 1: every PDU's MIC is checked",
            ])
        XCTAssertEqual(
            messages(events, LLDiagnostics.counterSkipped),
            ["expected packet counter 2, found 3: 1 encrypted PDU the sniffer did not hear"])
        for expected in [
            "#10 att Read Request", "#11 att Read Response", "#16 att Handle Value Notification",
            "#17 ll LL_PAUSE_ENC_REQ", "#18 ll LL_PAUSE_ENC_RSP", "#19 ll LL_PAUSE_ENC_RSP", "#27 att Write Request",
            "#28 att Write Response",
        ] {
            XCTAssertTrue(l.contains(expected), "\(expected) in \(l)")
        }
        XCTAssertFalse(l.contains { $0.contains("Encrypted PDU") }, "\(l)")
    }

    /// A key given least significant octet first still decrypts, and the timeline says how it was read.
    func testAKeyWrittenBackwardsIsTriedAndSaid() throws {
        let reversed = LinkLayerKey(
            address: nil, ltk: Key128(littleEndian: SnifferSamples.sampleLTK.littleEndian.reversed())!,
            source: "--ltk 1")
        let events = try analyze(givenKeyCapture, keys: [reversed])
        XCTAssertEqual(
            messages(events, LLDiagnostics.decrypted).first,
            "the encryption of LL_ENC_REQ #4 decrypted with --ltk 1, read least significant octet first: every PDU's MIC is checked"
        )
    }

    /// A wrong key is one warning, and nothing after it is decoded as if it were plaintext; the next
    /// session of the connection (its LTK unchanged) is not tried with it again.
    func testAWrongKeyIsSaidOnceAndNothingIsDecoded() throws {
        let wrong = LinkLayerKey(address: nil, ltk: Key128(hex: "00112233445566778899AABBCCDDEEFF")!, source: "--ltk 1")
        let events = try analyze(givenKeyCapture, keys: [wrong])
        XCTAssertEqual(
            messages(events, LLDiagnostics.keyWrong),
            [
                "expected a key whose MIC checks on the session's first encrypted PDU, found none of 1 key given or derived (each given also read least significant octet first): the session is shown encrypted"
            ])
        XCTAssertEqual(
            messages(events, LLDiagnostics.encrypted),
            [
                "data PDUs encrypted since LL_START_ENC_REQ, expected a key to decrypt them, found no new one: none of the keys given decrypted an earlier session of this connection: shown as encrypted"
            ])
        let l = llLines(events)
        XCTAssertEqual(
            l.filter { $0.contains(" att ") }, ["#2 att Exchange MTU Request", "#3 att Exchange MTU Response"])
        // Only the central's LL_PAUSE_ENC_RSP, in plaintext, is read: the restart is followed.
        XCTAssertEqual(
            l.filter { $0.contains("LL_PAUSE") || $0.contains("LL_ENC_REQ") },
            [
                "#4 ll LL_ENC_REQ", "#19 ll LL_PAUSE_ENC_RSP", "#21 ll LL_ENC_REQ",
            ])
    }

    func testWithoutAKeyTheSessionIsShownEncrypted() throws {
        let events = try analyze(givenKeyCapture)
        XCTAssertEqual(messages(events, LLDiagnostics.encrypted).count, 2)
        XCTAssertEqual(messages(events, LLDiagnostics.keyWrong), [])
    }

    /// A key for another device is not tried, and the timeline says so.
    func testAKeyForAnotherDeviceIsNotTried() throws {
        var other = Self.given
        other.address = BDAddr(text: "00:00:00:00:00:01")
        let events = try analyze(givenKeyCapture, keys: [other])
        XCTAssertEqual(
            messages(events, LLDiagnostics.encrypted),
            Array(
                repeating:
                    "data PDUs encrypted since LL_START_ENC_REQ, expected a key for this connection's devices (11:22:33:44:55:66, C0:11:22:33:44:55), found only 1 key for others: shown as encrypted",
                count: 2))
    }

    /// A PDU too short to hold a MIC in an encrypted session is malformed, never read as plaintext;
    /// a MIC that fails still used its packet counter, so the next PDU decrypts without a gap said.
    func testAShortPDUAndADamagedMICInASession() throws {
        var records = PcapFileWriter.records(of: givenKeyCapture)
        // Record 10 (the Read Request): cut to 2 octets of payload; its length field says 2.
        var cut = Array(records[9].payload.prefix(6 + 2))
        cut[5] = 2
        records[9].payload = (cut + [0, 0, 0])[...]
        // Record 11 (the Read Response): one bit of its MIC flipped.
        records[10].payload[records[10].payload.endIndex - 4] ^= 0x80
        var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        let events = try analyze(w.bytes, keys: [Self.given])
        XCTAssertEqual(
            events.compactMap { e in e.diagnostic.map { "#\(e.record) \($0.id): \($0.message)" } }.filter {
                $0.contains("malformed") || $0.contains("mic") || $0.contains("counter")
            },
            [
                "#10 ll.pdu.malformed: expected an encrypted PDU of at least 5 octets (payload and MIC), found 2 bytes",
                "#11 ll.mic.bad: expected a MIC that checks with the session key at packet counter 1 to 5, found none: PDU not decoded",
                "#16 ll.counter.skipped: expected packet counter 2, found 3: 1 encrypted PDU the sniffer did not hear",
            ])
    }

    /// A PDU whose MIC was damaged (one bit of the encrypted payload) is said and not decoded; the
    /// PDUs after it still decrypt.
    func testADamagedMICIsSaidAndTheSessionGoesOn() throws {
        var records = PcapFileWriter.records(of: givenKeyCapture)
        // Record 10, the Read Request: access address, header, then its L2CAP PDU encrypted.
        records[9].payload[records[9].payload.startIndex + 7] ^= 0x01
        var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        let events = try analyze(w.bytes, keys: [Self.given])
        XCTAssertEqual(
            messages(events, LLDiagnostics.micBad),
            ["expected a MIC that checks with the session key at packet counter 1 to 5, found none: PDU not decoded"])
        let l = llLines(events)
        XCTAssertTrue(l.contains("#10 ll Encrypted PDU"), "\(l)")
        XCTAssertTrue(l.contains("#11 att Read Response"), "\(l)")
    }

    /// A sniffer that decrypted a PDU itself says so in its header (256: decrypted, with the MIC
    /// checked and valid or not; 272: encrypted and MIC OK); the MIC stays after the plaintext.
    func testAPDUTheSnifferDecryptedIsDecodedWithoutItsMIC() throws {
        for link in [PcapFileWriter.LinkType.leWithPseudoHeader, .nordic] {
            var records = SnifferCapture.records()
            // Record 7: the ATT Exchange MTU Request; 11: the Read Request (256 only: its MIC failed).
            for (i, check) in [(6, AirPacket.Check.valid), (10, .invalid)] where link != .nordic || check == .valid {
                var p = Array(records[i].payload.dropLast(3))
                p[5] += 4
                records[i].payload = (p + [0xde, 0xad, 0xbe, 0xef, 0, 0, 0])[...]
                records[i].air?.mic = check
                records[i].air?.decrypted = true
            }
            var w = PcapFileWriter(link: link, layout: .pcap(nanoseconds: false))
            for r in records { w.add(r) }
            let events = try analyze(w.bytes)
            let l = llLines(events)
            XCTAssertTrue(l.contains("#7 att Exchange MTU Request"), "\(link): \(l)")
            XCTAssertEqual(messages(events, LLDiagnostics.decrypted), ["decrypted by the sniffer, as its header says"])
            guard link == .leWithPseudoHeader else { continue }
            XCTAssertTrue(l.contains("#11 ll Encrypted PDU"), "\(link): \(l)")
            XCTAssertFalse(l.contains("#11 att Read Request"), "\(link): \(l)")
            XCTAssertEqual(
                messages(events, LLDiagnostics.micBad),
                ["expected the MIC the sniffer checked to be valid, found its flag saying it failed: PDU not decoded"])
        }
    }

    /// A capture that begins inside an encrypted session: the sniffer's header says a PDU is encrypted
    /// (272: encrypted, MIC not OK), so it is shown as such, never decoded as plaintext.
    func testAPDUTheSnifferSaysIsEncryptedIsNeverReadAsPlaintext() throws {
        var records = SnifferCapture.records()
        records[6].air?.mic = .invalid
        var w = PcapFileWriter(link: .nordic, layout: .pcap(nanoseconds: false))
        for r in records { w.add(r) }
        let events = try analyze(w.bytes)
        XCTAssertTrue(llLines(events).contains("#7 ll Encrypted PDU"), "\(llLines(events))")
        XCTAssertEqual(
            messages(events, LLDiagnostics.encrypted).first,
            "data PDUs encrypted, as the sniffer's header says, in a session whose LL_ENC_REQ and LL_ENC_RSP the capture does not hold: shown as encrypted, never decoded"
        )
    }
}
