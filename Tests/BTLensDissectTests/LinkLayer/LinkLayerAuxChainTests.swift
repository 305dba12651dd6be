import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Advertising chains (Core v5.4 Vol 6 Part B §2.3.4): AUX_CHAIN_INDs related to their parent by
/// ADI, channel and time (the AuxPtr, §2.3.4.5), their AdvData joined, a missing part said.
final class LinkLayerAuxChainTests: XCTestCase {
    /// A type 7 payload (§2.3.4): extended header length, AdvMode 0, flags, AdvA (the sample's
    /// peripheral), ADI, AuxPtr (channel, 30 µs units, LE 1M, `offset` units); then AdvData.
    static func ext(advA: Bool = false, adi: UInt16? = 0x1001, aux: (UInt8, UInt16)?, _ data: [UInt8]) -> [UInt8] {
        var flags: UInt8 = 0
        var fields: [UInt8] = []
        if advA { (flags, fields) = (flags | 0x01, fields + SnifferCapture.peripheral.wire) }
        if let adi { (flags, fields) = (flags | 0x08, fields + [UInt8(adi & 0xff), UInt8(adi >> 8)]) }
        if let (channel, offset) = aux {
            (flags, fields) = (flags | 0x10, fields + [channel, UInt8(offset & 0xff), UInt8(offset >> 8)])
        }
        return [UInt8(fields.count + 1), flags] + fields + data
    }

    /// The name "Aurora Headset" split over an AUX_ADV_IND and an AUX_CHAIN_IND, 3 ms apart each
    /// (AuxPtr offset 100 × 30 µs), Battery Service in the third part.
    static func splitName(adi: UInt16? = 0x1001) -> AirCapture {
        var a = AirCapture()
        let name = Array("Aurora Headset".utf8)
        let first = [2, 0x01, 0x06, 15, 0x09] + name.prefix(7)
        a.advertising(7, ext(advA: true, adi: adi, aux: (20, 100), first), channel: 5, at: 0)
        a.advertising(7, ext(adi: adi, aux: (30, 100), Array(name.suffix(7))), channel: 20, at: 3000)
        a.advertising(7, ext(adi: adi, aux: nil, [3, 0x03, 0x0f, 0x18]), channel: 30, at: 6000)
        return a
    }

    /// Each LL message as "#record name key=value …" (fields in text form), and diagnostics by id.
    static func lines(_ a: AirCapture) throws -> [String] {
        try analyze(a.bytes()).compactMap { e in
            switch e.body {
            case .profile(let m):
                return (["#\(e.record) \(m.name)"] + m.fields.map { "\($0.0)=\(text($0.1))" }).joined(separator: " ")
            case .diagnostic(let d): return "#\(e.record) ! \(d.id)"
            default: return nil
            }
        }
    }

    static func text(_ v: FieldValue) -> String {
        switch v {
        case .int(let i): return "\(i)"
        case .hex(let i, let digits): return Hex.value(UInt64(truncatingIfNeeded: i), width: digits)
        case .string(let s): return "\"\(s)\""
        default: return "\(v)"
        }
    }

    func testANameSplitOverAChainIsJoined() throws {
        XCTAssertEqual(
            try Self.lines(Self.splitName()),
            [
                "#1 AUX_ADV_IND pdu_type=0x07 adv_mode=0 adv_address=\"C0:11:22:33:44:55 (random)\" adi_did=1 adi_sid=1 aux_channel=20 aux_phy=0 ad_flags=0x06",
                "#2 AUX_CHAIN_IND pdu_type=0x07 adv_mode=0 adi_did=1 adi_sid=1 aux_channel=30 aux_phy=0 chain_record=1 chain_by=\"ADI, channel, time\"",
                "#3 AUX_CHAIN_IND pdu_type=0x07 adv_mode=0 adi_did=1 adi_sid=1 chain_record=1 chain_by=\"ADI, channel, time\" chain_parts=3 chain_bytes=23 ad_flags=0x06 local_name=\"Aurora Headset\" services=\"0x180f\"",
            ])
    }

    /// Without ADIs the parts are related by channel and time alone, and say so.
    func testWithoutADIChannelAndTimeRelateTheParts() throws {
        let lines = try Self.lines(Self.splitName(adi: nil))
        XCTAssertTrue(lines[2].contains("chain_by=\"channel, time (no ADI)\" chain_parts=3"), lines[2])
    }

    /// A part with another ADI, on another channel or too late is no part of the chain: it stays an
    /// AUX_ADV_IND, and the chain's next part is said missing at the first record past its time.
    func testAPartThatDoesNotFitIsNoPart() throws {
        for (adi, channel, time) in [(UInt16(0x1002), UInt8(20), Int64(3000)), (0x1001, 21, 3000), (0x1001, 20, 9000)] {
            var a = AirCapture()
            a.advertising(7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06]), channel: 5, at: 0)
            a.advertising(7, Self.ext(adi: adi, aux: nil, [2, 0x01, 0x04]), channel: channel, at: time)
            a.advertising(0, SnifferCapture.peripheral.wire, at: 20_000)
            let lines = try Self.lines(a)
            XCTAssertTrue(lines.contains { $0.hasPrefix("#2 AUX_ADV_IND") }, "\(lines)")
            XCTAssertEqual(
                lines.filter { $0.contains("!") }.first,
                time > 6000 ? "#2 ! ll.aux.chain.missing" : "#3 ! ll.aux.chain.missing")
        }
    }

    func testAMissingPartIsSaid() throws {
        var a = AirCapture()
        a.advertising(7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06]), channel: 5, at: 0)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 50_000)
        let d = try analyze(a.bytes()).compactMap(\.diagnostic)
        XCTAssertEqual(
            d.map(\.message),
            [
                "expected AUX_CHAIN_IND on channel 20 where #1's AuxPtr points, found none before #2: the chain begun at #1 ends incomplete after 1 part, 3 bytes"
            ])
    }

    /// An AUX Offset of 0 points at no packet: the chain ends, and nothing is awaited.
    func testAnOffsetOfZeroEndsTheChain() throws {
        var a = AirCapture()
        a.advertising(7, Self.ext(advA: true, aux: (20, 0), [2, 0x01, 0x06]), channel: 5, at: 0)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 50_000)
        XCTAssertEqual(try Self.lines(a).filter { $0.contains("!") }, [])
    }
}

extension LinkLayerAuxChainTests {
    /// A chain that never ends (each part pointing at the next, 3 ms on): joined to 64 parts, then
    /// said once; its parts are still followed, their AdvData no longer kept.
    func testAChainThatNeverEndsIsBounded() throws {
        var a = AirCapture()
        a.advertising(7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06]), channel: 5, at: 0)
        for i in 1...100 { a.advertising(7, Self.ext(aux: (20, 100), [0xaa]), channel: 20, at: Int64(i) * 3000) }
        let lines = try Self.lines(a)
        XCTAssertEqual(lines.filter { $0.contains("!") }, ["#65 ! ll.aux.chain.limit"])
        XCTAssertEqual(lines.filter { $0.contains("AUX_CHAIN_IND") }.count, 100)
        XCTAssertEqual(lines.filter { $0.contains("AUX_ADV_IND") }.count, 1)
    }

    /// 17 chains awaited at once: the 17th is not followed, said once.
    func testChainsAwaitedAreBounded() throws {
        var a = AirCapture()
        for i in 0...LLAuxChains.pendingLimit {
            a.advertising(
                7, Self.ext(advA: true, adi: UInt16(i), aux: (20, 1000), [2, 0x01, 0x06]), channel: 5, at: Int64(i))
        }
        let ids = try analyze(a.bytes()).compactMap(\.diagnostic?.id)
        XCTAssertEqual(ids, ["ll.aux.chain.limit"])
    }

    /// An AuxPtr its extended header's length cuts short: a malformed PDU, no chain.
    func testATruncatedAuxPtr() throws {
        var a = AirCapture()
        var payload = Self.ext(advA: true, aux: (20, 100), [])
        payload[0] -= 2
        a.advertising(7, Array(payload.dropLast(2)), channel: 5, at: 0)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 50_000)
        XCTAssertEqual(try analyze(a.bytes()).compactMap(\.diagnostic?.id), ["ll.pdu.malformed"])
    }
}

extension LinkLayerAuxChainTests {
    /// AUX_SCAN_REQ (type 3 on a secondary channel), then the type 7 PDU heard on its channel within
    /// T_IFS and the request's length (§4.1.1): AUX_SCAN_RSP; its AuxPtr begins a chain. A type 7
    /// PDU later or on another channel stays AUX_ADV_IND.
    func testTheAnswerToAnAuxScanRequestIsAuxScanRsp() throws {
        var a = AirCapture()
        let request = SnifferCapture.central.wire + SnifferCapture.peripheral.wire
        a.advertising(3, tx: 0, rx: 1, request, channel: 20, at: 0)
        a.advertising(7, Self.ext(advA: true, aux: (30, 100), [2, 0x01, 0x06]), channel: 20, at: 330)
        a.advertising(7, Self.ext(aux: nil, [3, 0x09, 0x41, 0x42]), channel: 30, at: 3330)
        a.advertising(3, tx: 0, rx: 1, request, channel: 20, at: 10_000)
        a.advertising(7, Self.ext(advA: true, aux: nil, [2, 0x01, 0x06]), channel: 21, at: 10_330)
        a.advertising(3, tx: 0, rx: 1, request, channel: 20, at: 20_000)
        a.advertising(7, Self.ext(advA: true, aux: nil, [2, 0x01, 0x06]), channel: 20, at: 25_000)
        let names = try Self.lines(a).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        XCTAssertEqual(
            names,
            [
                "#1 AUX_SCAN_REQ", "#2 AUX_SCAN_RSP", "#3 AUX_CHAIN_IND", "#4 AUX_SCAN_REQ", "#5 AUX_ADV_IND",
                "#6 AUX_SCAN_REQ", "#7 AUX_ADV_IND",
            ])
        XCTAssertTrue(try Self.lines(a)[2].hasSuffix("chain_parts=2 chain_bytes=7 ad_flags=0x06 local_name=\"AB\""))
    }
}

extension LinkLayerAuxChainTests {
    /// Timestamps repeated: a part stamped with its parent's time is before its window (3 ms on), no
    /// part of the chain; nothing is overdue while time stands still, and the capture's end says nothing.
    func testRepeatedTimestamps() throws {
        var a = AirCapture()
        a.advertising(7, Self.ext(advA: true, aux: (20, 100), [2, 0x01, 0x06]), channel: 5, at: 0)
        a.advertising(7, Self.ext(aux: nil, [2, 0x01, 0x04]), channel: 20, at: 0)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 0)
        let lines = try Self.lines(a)
        XCTAssertTrue(lines[1].hasPrefix("#2 AUX_ADV_IND"), "\(lines)")
        XCTAssertEqual(lines.filter { $0.contains("!") }, [])
    }
}
