import BTLensCore
import XCTest

@testable import BTLensDissect

final class RFCOMMFrameTests: XCTestCase {
    /// TS 07.10 / RFCOMM: SABM on DLCI 0 with P set is `03 3F 01 1C` (FCS over address, control, length).
    func testSABMOnTheControlChannel() throws {
        let f = try RFCOMMFrame.parse([0x03, 0x3f, 0x01, 0x1c][...])
        XCTAssertEqual(f.type, .sabm)
        XCTAssertEqual(f.dlci, 0)
        XCTAssertTrue(f.pollFinal)
        XCTAssertEqual(f.fcs, f.expectedFCS)
        XCTAssertEqual(RFCOMMFrame.fcs([0x03, 0x3f, 0x01]), 0x1c)
    }

    func testUIHWithCreditsAndATwoByteLength() throws {
        // UIH on DLCI 4 with P/F: a credit byte precedes the information; the FCS covers address and control only.
        let info = Array(repeating: UInt8(0x41), count: 200)
        let header: [UInt8] = [0x11, 0xff, UInt8(200 << 1 & 0xfe), UInt8(200 >> 7)]
        let bytes = header + [0x05] + info + [RFCOMMFrame.fcs([0x11, 0xff])]
        let f = try RFCOMMFrame.parse(bytes[...])
        XCTAssertEqual(f.type, .uih)
        XCTAssertEqual(f.dlci, 4)
        XCTAssertEqual(f.channel, 2)
        XCTAssertEqual(f.credits, 5)
        XCTAssertEqual(Array(f.information), info)
        XCTAssertEqual(f.fcs, f.expectedFCS)
    }

    func testMultiplexerCommandsAndShortFrames() throws {
        // PN command on DLCI 0: type 0x20 with C/R and EA (0x83), length 8 (0x11).
        let mux = try RFCOMMMuxCommand.parse([0x83, 0x11, 0x06, 0xf0, 0x00, 0x00, 0xf4, 0x03, 0x00, 0x07][...])
        XCTAssertEqual(mux.name, "Parameter Negotiation (PN)")
        XCTAssertTrue(mux.isCommand)
        XCTAssertEqual(mux.values.count, 8)
        XCTAssertEqual(try RFCOMMMuxCommand.parse([0xe1, 0x05, 0x1b, 0x8d][...]).name, "Modem Status Command (MSC)")
        XCTAssertThrowsError(try RFCOMMFrame.parse([0x11, 0xef, 0x09, 0x41][...]))
        XCTAssertThrowsError(try RFCOMMFrame.parse([0x11][...]))
    }
}

/// Where the signalling of these tests happens: credits are not their concern.
private let signalingPlace = RecordPlace(record: 1, time: Timestamp(microseconds: 0))

final class L2CAPSignalingTests: XCTestCase {
    let connection = ConnectionKey(index: 0, handle: 0x0b)

    func testConnectionResponsesMapChannelsBothWays() {
        var map = L2CAPChannelMap()
        // We ask for PSM 3 from CID 0x0040; they answer with their CID 0x0071, result 0.
        let req = map.decode(
            [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00][...], connection: connection, direction: .sent,
            at: signalingPlace)
        XCTAssertEqual(req.commands.map(\.code.name), ["Connection Request"])
        _ = map.decode(
            [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00][...], connection: connection,
            direction: .received, at: signalingPlace)
        XCTAssertEqual(map.psm(connection, .sent, 0x0071), 3)
        XCTAssertEqual(map.psm(connection, .received, 0x0040), 3)
        XCTAssertNil(map.psm(connection, .sent, 0x0040))
        // A refused request maps nothing.
        _ = map.decode(
            [0x02, 0x02, 0x04, 0x00, 0x19, 0x00, 0x41, 0x00][...], connection: connection, direction: .sent,
            at: signalingPlace)
        _ = map.decode(
            [0x03, 0x02, 0x08, 0x00, 0x00, 0x00, 0x41, 0x00, 0x04, 0x00, 0x00, 0x00][...], connection: connection,
            direction: .received, at: signalingPlace)
        XCTAssertNil(map.psm(connection, .received, 0x0041))
        // Disconnection Response (from them: their CID 0x0071, ours 0x0040) frees the channel both ways.
        XCTAssertEqual(map.psm(connection, .sent, 0x0071), 3)
        _ = map.decode(
            [0x07, 0x03, 0x04, 0x00, 0x71, 0x00, 0x40, 0x00][...], connection: connection, direction: .received,
            at: signalingPlace)
        XCTAssertNil(map.psm(connection, .sent, 0x0071))
        XCTAssertNil(map.psm(connection, .received, 0x0040))
        _ = map.close(connection)
        XCTAssertNil(map.psm(connection, .received, 0x0040))
    }

    func testSeveralCommandsInOnePDUAndAMalformedOne() {
        var map = L2CAPChannelMap()
        let two: [UInt8] = [0x0a, 0x01, 0x02, 0x00, 0x02, 0x00, 0x0a, 0x02, 0x02, 0x00, 0x03, 0x00]
        XCTAssertEqual(
            map.decode(two[...], connection: connection, direction: .sent, at: signalingPlace).commands.count, 2)
        let cut = map.decode(
            [0x02, 0x01, 0x04, 0x00, 0x03][...], connection: connection, direction: .sent, at: signalingPlace)
        XCTAssertEqual(cut.diagnostics.map(\.id), ["l2cap.signaling.malformed"])
        XCTAssertEqual(L2CAPSignalingCode(rawValue: 0x7e).name, "Unknown (0x7e)")
        XCTAssertEqual(PSM.name(0x1001), "PSM 0x1001")
    }
}

final class L2CAPPendingTests: XCTestCase {
    func testAPendingResponseKeepsTheRequestOpen() {
        var map = L2CAPChannelMap()
        let c = ConnectionKey(index: 0, handle: 2)
        _ = map.decode(
            [0x02, 0x07, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00][...], connection: c, direction: .sent, at: signalingPlace)
        // Connection Response, result 1 (pending), then result 0 (success) with their CID 0x0400.
        _ = map.decode(
            [0x03, 0x07, 0x08, 0x00, 0x00, 0x04, 0x41, 0x00, 0x01, 0x00, 0x02, 0x00][...], connection: c,
            direction: .received, at: signalingPlace)
        XCTAssertNil(map.psm(c, .sent, 0x0400))
        _ = map.decode(
            [0x03, 0x07, 0x08, 0x00, 0x00, 0x04, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00][...], connection: c,
            direction: .received, at: signalingPlace)
        XCTAssertEqual(map.psm(c, .sent, 0x0400), 3)
    }
}

final class SDPTests: XCTestCase {
    /// A Service Search Attribute Response with one record: ServiceClassIDList {…CAFF},
    /// ProtocolDescriptorList {{L2CAP}, {RFCOMM, channel 3}}, ServiceName "Wireless iAP".
    func response(split: Int? = nil) -> [[UInt8]] {
        let uuid128: [UInt8] = [
            0x1c, 0, 0, 0, 0, 0xde, 0xca, 0xfa, 0xde, 0xde, 0xca, 0xde, 0xaf, 0xde, 0xca, 0xca, 0xff,
        ]
        let classes: [UInt8] = [0x09, 0x00, 0x01, 0x35, UInt8(uuid128.count)] + uuid128
        let protocols: [UInt8] = [
            0x09, 0x00, 0x04, 0x35, 0x0c, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, 0x03,
        ]
        let name: [UInt8] = [0x09, 0x01, 0x00, 0x25, 0x0c] + Array("Wireless iAP".utf8)
        let record = classes + protocols + name
        let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
        func pdu(_ part: [UInt8], more: Bool) -> [UInt8] {
            let params = [UInt8(part.count >> 8), UInt8(part.count & 0xff)] + part + (more ? [0x01, 0x07] : [0x00])
            return [0x07, 0x00, 0x01, UInt8(params.count >> 8), UInt8(params.count & 0xff)] + params
        }
        guard let split else { return [pdu(lists, more: false)] }
        return [pdu(Array(lists.prefix(split)), more: true), pdu(Array(lists.dropFirst(split)), more: false)]
    }

    func testIAP2ServiceAndItsRFCOMMChannel() {
        var d = SDPDecoder()
        let (info, diagnostics) = d.decode(response()[0][...])
        XCTAssertEqual(diagnostics.count, 0)
        let uuid = BluetoothUUID.bit128([
            0x00, 0x00, 0x00, 0x00, 0xde, 0xca, 0xfa, 0xde, 0xde, 0xca, 0xde, 0xaf, 0xde, 0xca, 0xca, 0xff,
        ])
        XCTAssertEqual(
            info?.services,
            [
                SDPService(
                    name: "Wireless iAP", classes: ["iAP2 (caff)"], classUUIDs: [uuid], rfcommChannel: 3,
                    isIAP2: true)
            ])
    }

    func testContinuationJoinsTheListAtEverySplit() {
        let whole = response()[0]
        let listLength = Int(whole[5]) << 8 | Int(whole[6])
        for split in 1..<listLength {
            var d = SDPDecoder()
            let parts = response(split: split)
            XCTAssertEqual(d.decode(parts[0][...]).0?.services, [], "split \(split)")
            XCTAssertEqual(d.decode(parts[1][...]).0?.services.first?.rfcommChannel, 3, "split \(split)")
        }
    }

    /// A service record whose channel is a uint16 0x0103, and whose attribute id is a uint128 ending
    /// in 0x0004: the channel was cut to its low byte (3) and the id to its low 64 bits, binding
    /// RFCOMM channel 3 to whatever the record said. An RFCOMM server channel is 1 to 30 and an
    /// attribute id a uint16 (Core v5.4 Vol 3 Part B §5.1.1, §5.1.5; RFCOMM §5.4): neither is taken.
    func testNumbersWiderThanTheirFieldsAreNotCut() {
        func channel(_ record: [UInt8]) -> [UInt8?]? {
            let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
            let params = [0x00, UInt8(lists.count)] + lists + [0x00]
            var d = SDPDecoder()
            let (info, _) = d.decode(([0x07, 0x00, 0x01, 0x00, UInt8(params.count)] + params)[...])
            return info?.services.map(\.rfcommChannel)
        }
        // {{L2CAP}, {RFCOMM, channel}}, as uint8 3 (the right way), as uint16 0x0103.
        let protocols = { (ch: [UInt8]) -> [UInt8] in
            [0x35, UInt8(10 + ch.count), 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, UInt8(3 + ch.count), 0x19, 0x00, 0x03] + ch
        }
        XCTAssertEqual(channel([0x09, 0x00, 0x04] + protocols([0x08, 0x03])), [3])
        XCTAssertEqual(channel([0x09, 0x00, 0x04] + protocols([0x09, 0x01, 0x03])), [nil])
        // Channel 130: its DLCI, 130 << 1 in a byte, is 4, channel 2's.
        XCTAssertEqual(channel([0x09, 0x00, 0x04] + protocols([0x08, 0x82])), [nil])
        XCTAssertEqual(
            channel(
                [0x0c] + [UInt8](repeating: 0xff, count: 8) + [UInt8](repeating: 0, count: 6) + [0x00, 0x04]
                    + protocols([0x08, 0x03])), [nil])
    }

    func testHostileNestingIsADiagnostic() {
        var nested: [UInt8] = [0x08, 0x01]
        for _ in 0..<40 { nested = [0x35, UInt8(truncatingIfNeeded: nested.count)] + nested }
        let params = [UInt8(nested.count >> 8), UInt8(nested.count & 0xff)] + nested + [0x00]
        var d = SDPDecoder()
        let (_, diagnostics) = d.decode(
            ([0x07, 0x00, 0x01, UInt8(params.count >> 8), UInt8(params.count & 0xff)] + params)[...])
        XCTAssertEqual(diagnostics.map(\.id), ["sdp.malformed"])
    }
}
