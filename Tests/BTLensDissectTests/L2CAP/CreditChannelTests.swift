import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

final class CreditChannelTests: XCTestCase {
    private let connection = ConnectionKey(index: 0, handle: 0x0040)
    private func place(_ record: Int, ms: Int64 = 0) -> RecordPlace {
        RecordPlace(record: record, time: Timestamp(microseconds: ms * 1000))
    }

    private func decode(_ map: inout L2CAPChannelMap, _ hex: String, _ direction: Direction, record: Int = 1)
        -> L2CAPSignalingInfo?
    {
        map.decode(ArraySlice(Hex.bytes(hex) ?? []), connection: connection, direction: direction, at: place(record))
            .commands.first
    }

    private func fields(_ info: L2CAPSignalingInfo?) -> [String] {
        (info?.fields ?? []).map { "\($0.0)=\($0.1)" }
    }

    /// Core Vol 3 Part A §4.22 and §4.23: LE Credit Based Connection Request (code 0x14: LE_PSM,
    /// Source CID, MTU, MPS, Initial Credits) and Response (0x15: Destination CID, MTU, MPS,
    /// Initial Credits, Result); §4.24: Flow Control Credit Indication (0x16: CID, Credits).
    func testLECreditBasedSignallingOpensAChannelEachWay() {
        var map = L2CAPChannelMap()
        let request = decode(&map, "14 01 0a 00 80 00 40 00 00 02 64 00 02 00", .sent)
        XCTAssertEqual(request?.code.name, "LE Credit Based Connection Request")
        XCTAssertEqual(
            fields(request),
            [
                "psm=\(FieldValue.hex(UInt16(0x80)))", "psm_name=\(FieldValue.string("PSM 0x0080"))",
                "source_cid=\(FieldValue.hex(UInt16(0x40)))", "mtu=\(FieldValue.int(512))",
                "mps=\(FieldValue.int(100))",
                "credits=\(FieldValue.int(2))",
            ])
        _ = decode(&map, "15 01 0a 00 41 00 00 01 28 00 04 00 00 00", .received)
        XCTAssertEqual(map.psm(connection, .sent, 0x0041), 0x0080)
        XCTAssertEqual(map.psm(connection, .received, 0x0040), 0x0080)
        let toDevice = L2CAPChannelMap.Key(connection: connection, direction: .sent, cid: 0x0041)
        let toPhone = L2CAPChannelMap.Key(connection: connection, direction: .received, cid: 0x0040)
        XCTAssertEqual(map.credit[toDevice].map { [$0.mtu, $0.mps, $0.credits] }, [256, 40, 4])
        XCTAssertEqual(map.credit[toPhone].map { [$0.mtu, $0.mps, $0.credits] }, [512, 100, 2])
        // The phone gives the device 5 more credits on its own CID 0x0040.
        _ = decode(&map, "16 02 04 00 40 00 05 00", .sent)
        XCTAssertEqual(map.credit[toPhone]?.credits, 7)
        // A refused request (result 0x0002, LE_PSM not supported) opens nothing.
        _ = decode(&map, "14 03 0a 00 81 00 42 00 00 02 64 00 02 00", .sent)
        _ = decode(&map, "15 03 0a 00 00 00 00 00 00 00 00 00 02 00", .received)
        XCTAssertNil(map.psm(connection, .received, 0x0042))
        // Disconnection Response (§4.7) closes both ways.
        _ = decode(&map, "07 04 04 00 41 00 40 00", .received)
        XCTAssertNil(map.credit[toDevice])
        XCTAssertNil(map.credit[toPhone])
    }

    /// §4.25–4.27: an Enhanced Credit Based request for two channels (SPSM, MTU, MPS, credits, then
    /// the Source CIDs), one refused in the response (its Destination CID 0x0000); Reconfigure
    /// changes the MTU and MPS of the sender's channels.
    func testEnhancedCreditBasedChannelsAndReconfigure() {
        var map = L2CAPChannelMap()
        let request = decode(&map, "17 05 0c 00 27 00 40 00 40 00 0a 00 40 00 41 00", .sent)
        XCTAssertTrue(fields(request).contains("source_cid=\(FieldValue.string("0x0040 0x0041"))"))
        let response = decode(&map, "18 05 0c 00 64 00 40 00 03 00 04 00 50 00 00 00", .received)
        XCTAssertTrue(fields(response).contains("destination_cid=\(FieldValue.string("0x0050 0x0000"))"))
        XCTAssertEqual(map.psm(connection, .sent, 0x0050), PSM.eatt)
        XCTAssertEqual(map.psm(connection, .received, 0x0040), PSM.eatt)
        XCTAssertNil(map.psm(connection, .received, 0x0041))
        _ = decode(&map, "19 06 06 00 00 01 50 00 40 00", .sent)
        let toPhone = L2CAPChannelMap.Key(connection: connection, direction: .received, cid: 0x0040)
        XCTAssertEqual(map.credit[toPhone].map { [$0.mtu, $0.mps] }, [256, 80])
    }

    /// One SDU of `length` bytes (its 2-byte length first) cut into K-frames of every size from 2
    /// (the length must be whole in the first) to the whole: the same SDU, in the record of its last.
    func testAnSDUSplitIntoKFramesOfEverySizeIsTheSame() {
        let sdu = (0..<70).map { UInt8($0 * 7 & 0xff) }
        let bytes = [UInt8(sdu.count), 0] + sdu
        for size in 2...bytes.count {
            var channel = CreditBasedChannel(mtu: 100, mps: 100, credits: 100)
            var got: [([UInt8], Int, Int)] = []
            var record = 0
            for start in stride(from: 0, to: bytes.count, by: size) {
                record += 1
                for case .sdu(let s, let first) in channel.kframe(
                    bytes[start..<min(bytes.count, start + size)], at: place(record), cid: 0x40)
                {
                    got.append((s, first, record))
                }
            }
            XCTAssertEqual(got.map(\.0), [sdu], "K-frames of \(size)")
            XCTAssertEqual(got.map(\.1), [1], "K-frames of \(size)")
            XCTAssertEqual(got.map(\.2), [record], "K-frames of \(size)")
        }
    }

    private func undecoded(_ outputs: [CreditBasedChannel.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .undecoded(let b) = $0 { Array(b) } else { nil } }
    }

    private func ids(_ outputs: [CreditBasedChannel.Output]) -> [String] {
        outputs.compactMap { if case .diagnostic(let d) = $0 { d.id } else { nil } }
    }

    func testCreditsRunningOutAndSendingWithoutThem() {
        var channel = CreditBasedChannel(mtu: 100, mps: 10, credits: 1)
        XCTAssertEqual(ids(channel.kframe([1, 0, 9], at: place(1, ms: 100), cid: 0x40)), [])
        XCTAssertEqual(ids(channel.kframe([1, 0, 9], at: place(2, ms: 150), cid: 0x40)), ["l2cap.credits.none"])
        let granted = channel.grant(3, at: place(3, ms: 350), cid: 0x40)
        XCTAssertEqual(granted.map(\.id), ["l2cap.credits.stalled"])
        XCTAssertEqual(granted.first?.message, "channel 0x0040 had no credits from #1 to #3 (250 ms)")
        XCTAssertEqual(channel.credits, 3)
        XCTAssertEqual(channel.grant(0xffff, at: place(4), cid: 0x40).map(\.id), ["l2cap.credits.overflow"])
        XCTAssertEqual(channel.credits, 0xffff)
    }

    func testSDUsThatBreakTheirBounds() {
        var channel = CreditBasedChannel(mtu: 4, mps: 3, credits: 10)
        // Length 5 is over the MTU of 4; the K-frame of 4 bytes is over the MPS of 3.
        XCTAssertEqual(
            ids(channel.kframe([5, 0, 1, 2], at: place(1), cid: 0x40)), ["l2cap.kframe.over_mps", "l2cap.sdu.over_mtu"])
        // 3 more bytes than the 5 declared: the SDU ends, the excess is undecoded.
        let out = channel.kframe([3, 4, 5], at: place(2), cid: 0x40)
        XCTAssertEqual(ids(out), [])
        var channel2 = CreditBasedChannel(mtu: 100, mps: 100, credits: 10)
        let overrun = channel2.kframe([2, 0, 1, 2, 3, 4], at: place(1), cid: 0x40)
        XCTAssertEqual(ids(overrun), ["l2cap.sdu.overrun"])
        XCTAssertEqual(undecoded(overrun), [[3, 4]])
        XCTAssertEqual(overrun.compactMap { if case .sdu(let b, _) = $0 { b } else { nil } }, [[1, 2] as [UInt8]])
        // A channel that closes mid-SDU says so and gives its bytes back.
        _ = channel2.kframe([9, 0, 1, 2, 3], at: place(2), cid: 0x40)
        let left = channel2.close(cid: 0x40)
        XCTAssertEqual(ids(left), ["l2cap.sdu.incomplete"])
        XCTAssertEqual(undecoded(left), [[1, 2, 3]])
        // A first K-frame too short for the SDU length is undecoded.
        var channel3 = CreditBasedChannel(mtu: 100, mps: 100, credits: 10)
        XCTAssertEqual(undecoded(channel3.kframe([7], at: place(1), cid: 0x40)), [[7]])
    }

    /// A channel closed by its Disconnection Request/Response in the middle of an SDU says so and
    /// shows the bytes; a new channel on the same CIDs to another PSM starts afresh.
    func testAClosedChannelEndsItsSDUAndItsStream() throws {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        func open(_ id: UInt8, psm: UInt8) {
            s.l2cap(
                handle: h, .sent, cid: 5,
                [0x14, id, 0x0a, 0x00, psm, 0x00, 0x40, 0x00, 0x00, 0x01, 0x40, 0x00, 0x0a, 0x00])
            s.l2cap(
                handle: h, .received, cid: 5,
                [0x15, id, 0x0a, 0x00, 0x41, 0x00, 0x00, 0x01, 0x40, 0x00, 0x0a, 0x00, 0x00, 0x00])
        }
        open(1, psm: 0x80)
        let frame = Frame.encode(command: 0x20, sequence: 7, payload: [0x01])
        let sent = s.l2cap(handle: h, .sent, cid: 0x0041, [UInt8(frame.count), 0x00] + frame)
        // An SDU of 13 bytes of which 5 arrive; then the channel is closed (Core Vol 3 Part A §4.6, §4.7).
        s.l2cap(handle: h, .sent, cid: 0x0041, [0x0d, 0x00, 1, 2, 3, 4, 5])
        s.l2cap(handle: h, .sent, cid: 5, [0x06, 2, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00])
        let closed = s.l2cap(handle: h, .received, cid: 5, [0x07, 2, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00])
        open(3, psm: 0x82)
        let again = s.l2cap(handle: h, .sent, cid: 0x0041, [0x03, 0x00, 9, 9, 9])
        let events = try analyze(s.bytes)
        let said = events.compactMap { e -> String? in
            switch e.body {
            case .diagnostic(let d): return "#\(e.record) \(d.id)"
            case .undecoded(let u): return "#\(e.record) \(u.what) \(Hex.string(u.bytes))"
            case .frame(let f): return "#\(e.record) frame \(f.frame.sequence ?? 0)"
            default: return nil
            }
        }
        XCTAssertEqual(
            said,
            [
                "#\(sent) frame 7", "#\(closed) l2cap.sdu.incomplete",
                "#\(closed) credit-based channel 0x0041 (PSM 0x0080) 0102030405",
                "#\(again) credit-based channel 0x0041 (PSM 0x0082) 090909",
            ])
    }

    /// The sample capture: the same A5 exchange over GATT and over the credit-based channel gives
    /// the same frames, command for command and byte for byte.
    func testA5OverACreditBasedChannelIsTheSameAsOverGATT() throws {
        let events = try analyze(SampleCaptures.creditChannelA5().bytes)
        var gatt: [String] = []
        var channel: [String] = []
        for e in events {
            guard case .frame(let f) = e.body else { continue }
            let text =
                "\(e.direction?.name ?? "") \(f.frame.command) \(f.frame.sequence ?? 0) \(Hex.string(f.frame.payload))"
            if f.transport == .l2cap {
                XCTAssertEqual(f.l2capChannel?.psm, 0x0080)
                channel.append(text)
            } else {
                gatt.append(text)
            }
        }
        XCTAssertEqual(gatt.count, 5)
        XCTAssertEqual(channel, gatt)
        XCTAssertFalse(events.contains { if case .undecoded = $0.body { true } else { false } })
    }
}
