import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

final class IAP2FramerTests: XCTestCase {
    /// Real bytes (docs/protocols/iap2.md, test vectors), a head unit's SYN: version 1, 64 outstanding,
    /// 8192 bytes, 1000 ms retransmit, 50 ms cumulative ack, 30 retries, 20 acks; sessions (1 control v2),
    /// (2 file transfer v1).
    let hyuSYN = Hex.bytes("ff5a001a80e8000025 01 40 2000 03e8 0032 1e 14 01 00 02 02 01 01 49") ?? []
    /// The adapter's StartIdentification: `40 40 00 06 1d 00` on session 1, PSN 0x1e.
    let hyuStartIdentification = Hex.bytes("ff5a0010401ee80150 40 40 00 06 1d 00 5d") ?? []
    /// BOYA receiver's bare ACK.
    let boyaACK = Hex.bytes("ff5a0009400140001d") ?? []

    func items(_ chunks: [[UInt8]]) -> [IAP2Framer.Item] {
        var f = IAP2Framer()
        var out: [IAP2Framer.Item] = []
        for c in chunks {
            f.append(c)
            while let i = f.next() { out.append(i) }
        }
        return out
    }

    func testRealPacketsParseWithValidChecksums() {
        guard case .packet(let syn)? = items([hyuSYN]).first else { return XCTFail("no SYN") }
        XCTAssertEqual(syn.kind.name, "SYN")
        XCTAssertEqual(syn.psn, 0xe8)
        XCTAssertTrue(syn.payloadChecksumOK)
        XCTAssertEqual(syn.payload.count, 16)
        guard case .packet(let data)? = items([hyuStartIdentification]).first else { return XCTFail("no data") }
        XCTAssertEqual(data.kind.name, "DATA")
        XCTAssertEqual(data.session, 1)
        XCTAssertEqual(data.payload, [0x40, 0x40, 0x00, 0x06, 0x1d, 0x00])
        guard case .packet(let ack)? = items([boyaACK]).first else { return XCTFail("no ACK") }
        XCTAssertEqual(ack.kind.name, "ACK")
        XCTAssertEqual(
            IAP2LinkPacket.encode(control: 0x40, psn: 0x1e, pan: 0xe8, session: 1, payload: Array(data.payload)),
            hyuStartIdentification)
    }

    func testSplitAtEveryOffsetWithJunkAndDetect() {
        let stream = IAP2Framer.detectBytes + [0x00, 0x13] + hyuSYN + boyaACK + hyuStartIdentification
        let whole = items([stream])
        XCTAssertEqual(whole.count, 5)
        XCTAssertEqual(whole.first, .detect)
        XCTAssertEqual(whole[1], .skipped(2))
        XCTAssertEqual(FramerVerifier.disagreements(stream, items), [])
    }

    func testBadChecksumsAndIAP1Answers() {
        var badPayload = hyuStartIdentification
        badPayload[badPayload.count - 1] ^= 0xff
        guard case .packet(let p)? = items([badPayload]).first else { return XCTFail("no packet") }
        XCTAssertFalse(p.payloadChecksumOK)
        var badHeader = boyaACK
        badHeader[8] ^= 0xff
        XCTAssertEqual(items([badHeader + boyaACK]).first, .badHeader)
        XCTAssertEqual(
            items([[0xff, 0x55, 0x04, 0x00, 0x02, 0x04, 0xee, 0x08]]),
            [.iap1([0xff, 0x55, 0x04, 0x00, 0x02, 0x04, 0xee, 0x08])])
        XCTAssertTrue(IAP2Framer.looksLikeIAP2(hyuSYN[...]))
        XCTAssertFalse(IAP2Framer.looksLikeIAP2([0x01, 0xfe, 0x00, 0x00][...]))
    }
}

final class IAP2LinkTests: XCTestCase {
    func packet(_ control: UInt8, _ psn: UInt8, _ session: UInt8, _ payload: [UInt8]) -> [UInt8] {
        IAP2LinkPacket.encode(control: control, psn: psn, pan: 0, session: session, payload: payload)
    }

    func param(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8((data.count + 4) >> 8), UInt8((data.count + 4) & 0xff), UInt8(id >> 8), UInt8(id & 0xff)] + data
    }

    func message(_ id: UInt16, _ params: [UInt8]) -> [UInt8] {
        [
            0x40, 0x40, UInt8((params.count + 6) >> 8), UInt8((params.count + 6) & 0xff), UInt8(id >> 8),
            UInt8(id & 0xff),
        ] + params
    }

    func testSessionsIdentificationAndEA() {
        var link = IAP2Link()
        var out: [IAP2Link.Output] = []
        // SYN: version 1 … ; sessions (1, control, v1), (2, external accessory, v1).
        let syn: [UInt8] = [1, 4, 0x10, 0x00, 0x03, 0xe8, 0x00, 0x32, 0x1e, 0x02, 1, 0, 1, 2, 2, 1]
        out += link.push(packet(0x80, 10, 0, syn)[...], direction: .received, time: Timestamp(microseconds: 0))
        let ident = message(
            0x1d01,
            param(0, Array("Lamp\0".utf8)) + param(3, Array("SN1\0".utf8))
                + param(10, param(0, [7]) + param(1, Array("com.lawaken.iap2\0".utf8)) + param(2, [0])))
        out += link.push(packet(0x40, 11, 1, ident)[...], direction: .received, time: Timestamp(microseconds: 0))
        out += link.push(
            packet(0x40, 1, 1, message(0xea00, param(0, [7]) + param(1, [0x00, 0x05])))[...], direction: .sent,
            time: Timestamp(microseconds: 0))
        out += link.push(
            packet(0x40, 2, 2, [0x00, 0x05, 0xa5, 0x01])[...], direction: .sent, time: Timestamp(microseconds: 0))
        // The same PSN and payload resent with a new PAN 2 s later: a retransmission; then the same
        // bytes again at once: a capture duplicate; then a gap of one.
        let resent = IAP2LinkPacket.encode(
            control: 0x40, psn: 2, pan: 1, session: 2, payload: [0x00, 0x05, 0xa5, 0x01])
        out += link.push(resent[...], direction: .sent, time: Timestamp(microseconds: 2_000_000))
        out += link.push(resent[...], direction: .sent, time: Timestamp(microseconds: 2_000_100))
        out += link.push(
            packet(0x40, 4, 2, [0x00, 0x05, 0x02])[...], direction: .sent, time: Timestamp(microseconds: 0))
        var identification: IAP2Identification?
        var ea: [(UInt16, String?, [UInt8])] = []
        var ids: [String] = []
        for o in out {
            switch o {
            case .identification(let i): identification = i
            case .ea(let s, let p, let b): ea.append((s, p, Array(b)))
            case .diagnostic(let d): ids.append(d.id)
            default: break
            }
        }
        XCTAssertEqual(identification?.name, "Lamp")
        XCTAssertEqual(identification?.serial, "SN1")
        XCTAssertEqual(identification?.protocols.map(\.name), ["com.lawaken.iap2"])
        XCTAssertEqual(ea.map(\.0), [5, 5])
        XCTAssertEqual(ea.map(\.1), ["com.lawaken.iap2", "com.lawaken.iap2"])
        XCTAssertEqual(ea.map(\.2), [[0xa5, 0x01], [0x02]])
        XCTAssertEqual(ids, ["iap2.retransmission", "iap2.duplicate", "iap2.sequence.gap"])
        let eak = link.push(
            IAP2LinkPacket.encode(control: 0x60, psn: 11, pan: 2, session: 0, payload: [5, 6])[...],
            direction: .received, time: Timestamp(microseconds: 3_000_000))
        guard case .packet(let p)? = eak.first else { return XCTFail("no EAK") }
        XCTAssertEqual(p.kind.name, "EAK")
        XCTAssertEqual(p.detail, "out-of-sequence PSNs (Apple semantics): 5 6")
    }
}
