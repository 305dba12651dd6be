import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Security Manager Protocol PDUs (Core Vol 3, Part H, §3.5–3.6) and the pairing method they imply.
final class SMPTests: XCTestCase {
    private func fields(_ hex: String) -> String? {
        let bytes = hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
        guard let info = SMPInfo(bytes[...]) else { return nil }
        return ([info.name] + info.fields.map { "\($0.0)=\(Self.text($0.1))" }).joined(separator: " ")
    }

    static func text(_ v: FieldValue) -> String {
        switch v {
        case .int(let i): return "\(i)"
        case .hex(let i, let digits): return Hex.value(i, width: digits)
        case .string(let s): return s
        case .bool(let b): return "\(b)"
        case .bytes(let b): return Hex.string(b)
        default: return "\(v)"
        }
    }

    func testPairingFeatureExchange() {
        // §3.5.1: code 01, IO capability 03 (NoInputNoOutput), OOB 00, AuthReq 2d (bonding 01,
        // MITM, Secure Connections, CT2), key size 16, initiator and responder keys 0f.
        XCTAssertEqual(
            fields("01 03 00 2d 10 0f 0f"),
            "Pairing Request io_capability=NoInputNoOutput oob_data=false bonding=true mitm=true secure_connections=true keypress=false max_key_size=16 initiator_keys=EncKey,IdKey,SignKey,LinkKey responder_keys=EncKey,IdKey,SignKey,LinkKey"
        )
        // §3.5.2: the response, DisplayYesNo, no bonding, keys 01 and 03.
        XCTAssertEqual(
            fields("02 01 00 0c 07 01 03"),
            "Pairing Response io_capability=DisplayYesNo oob_data=false bonding=false mitm=true secure_connections=true keypress=false max_key_size=7 initiator_keys=EncKey responder_keys=EncKey,IdKey"
        )
    }

    func testKeysAreShownOnlyAsPresent() {
        let sixteen = Array(repeating: "aa", count: 16).joined(separator: " ")
        XCTAssertEqual(fields("06 " + sixteen), "Encryption Information ltk=present")
        XCTAssertEqual(fields("03 " + sixteen), "Pairing Confirm confirm=present")
        XCTAssertEqual(
            fields("07 34 12 " + Array(repeating: "bb", count: 8).joined(separator: " ")),
            "Central Identification ediv=0x1234 rand=present")
        // §3.6.5: address type 00 (public), then the address least significant byte first.
        XCTAssertEqual(
            fields("09 00 66 55 44 33 22 11"),
            "Identity Address Information address_type=public address=11:22:33:44:55:66")
        XCTAssertEqual(fields("05 04"), "Pairing Failed reason=0x04 reason_name=Confirm Value Failed")
        XCTAssertEqual(
            fields("0b 05"), "Security Request bonding=true mitm=true secure_connections=false keypress=false")
    }

    func testShortOrUnknownPDUsAreNotDecoded() {
        XCTAssertNil(fields(""))
        XCTAssertNil(fields("01 03 00 2d 10 0f"))
        XCTAssertNil(fields("0c " + Array(repeating: "00", count: 63).joined(separator: " ")))
        XCTAssertNil(fields("0f 00"))
    }

    /// Table 2.8, rows the responder's IO capability, columns the initiator's.
    func testPairingMethod() {
        let sc: UInt8 = 0x0d  // bonding, MITM, Secure Connections
        let legacy: UInt8 = 0x05  // bonding, MITM
        func m(_ i: UInt8, _ r: UInt8, _ auth: UInt8, oob: Bool = false) -> String {
            SMPInfo.method(initiator: (i, oob, auth), responder: (r, false, auth))
        }
        XCTAssertEqual(m(1, 1, sc), "LE Secure Connections, Numeric Comparison")
        XCTAssertEqual(m(1, 1, legacy), "LE legacy pairing, Just Works")
        XCTAssertEqual(m(4, 1, legacy), "LE legacy pairing, Passkey Entry")
        XCTAssertEqual(m(2, 0, sc), "LE Secure Connections, Passkey Entry")
        XCTAssertEqual(m(4, 3, sc), "LE Secure Connections, Just Works")
        XCTAssertEqual(m(1, 1, 0x09), "LE Secure Connections, Just Works")  // no MITM
        XCTAssertEqual(m(1, 1, sc, oob: true), "LE Secure Connections, OOB")  // either side's flag, with SC
        XCTAssertEqual(m(1, 1, legacy, oob: true), "LE legacy pairing, Just Works")
    }

    /// On the timeline: each PDU named, none left undecoded.
    func testPairingPDUsAreEvents() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.l2cap(handle: 0x40, .sent, cid: 0x0006, [0x01, 0x04, 0x00, 0x0d, 0x10, 0x03, 0x03])
        s.l2cap(handle: 0x40, .received, cid: 0x0006, [0x02, 0x01, 0x00, 0x0d, 0x10, 0x03, 0x03])
        s.l2cap(handle: 0x40, .sent, cid: 0x0006, [0x0c] + Array(repeating: 0x11, count: 64))
        let events = try analyze(s.bytes)
        let smp = events.compactMap { e -> String? in
            if case .smp(let p) = e.body { return "#\(e.record) \(p.name)" }
            return nil
        }
        // The 65-byte public key PDU spans three ACL fragments: named at the one that completes it.
        XCTAssertEqual(smp, ["#4 Pairing Request", "#5 Pairing Response", "#8 Pairing Public Key"])
        XCTAssertFalse(events.contains { if case .undecoded = $0.body { true } else { false } })
    }
}
