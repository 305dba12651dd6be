import BTLensCore
import XCTest

@testable import BTLensDissect

/// Hex vectors per ATT PDU (Core Specification, Vol 3, Part F, §3.4).
final class ATTDecoderTests: XCTestCase {
    var decoder = ATTDecoder(gatt: GATTStore(), peer: .connection(ConnectionKey(index: 0, handle: 0x40)))

    func decode(_ hex: String, _ direction: Direction, truncated: Bool = false) -> ATTResult {
        var result = ATTResult()
        var reader = ByteReader(Hex.bytes(hex) ?? [])
        decoder.decode(&reader, direction: direction, record: 1, truncated: truncated, into: &result)
        return result
    }

    /// The stream values of a PDU, as bytes. The PDU lies at an offset in a larger buffer, as a
    /// capture's do: its values' indices are the buffer's.
    func streamValues(_ hex: String, _ direction: Direction) -> [[UInt8]] {
        let pdu = ([0xee, 0xee] + (Hex.bytes(hex) ?? []))[2...]
        var result = ATTResult()
        var reader = ByteReader(pdu)
        decoder.decode(&reader, direction: direction, record: 1, truncated: false, into: &result)
        return result.streamValues.map { $0.value.withBytes(in: pdu) { Array($0) } }
    }

    func testExchangeMTUTakesTheSmallerOfBoth() {
        // Exchange MTU Request: 0x02, Client Rx MTU 247 (f7 00); Response: 0x03, Server Rx MTU 64.
        XCTAssertEqual(decode("02 f7 00", .sent).info.opcode.name, "Exchange MTU Request")
        XCTAssertEqual(decode("03 40 00", .received).info.fields.last?.1, .int(64))
        XCTAssertEqual(decoder.bearer.mtu, 64)
    }

    func testDiscoveryBuildsTheHandleMap() {
        // Read By Group Type Request 0x0001–0xffff, Primary Service (0x2800).
        _ = decode("10 01 00 ff ff 00 28", .sent)
        // Response: length 6; 0x0001–0x0005 Battery (0x180f); 0x0006–0x0009 Device Information (0x180a).
        _ = decode("11 06 01 00 05 00 0f 18 06 00 09 00 0a 18", .received)
        // Read By Type Request for Characteristic (0x2803), then its response (length 7):
        // decl 0x0002, props 0x12, value 0x0003, Battery Level (0x2a19).
        _ = decode("08 01 00 ff ff 03 28", .sent)
        _ = decode("09 07 02 00 12 03 00 19 2a", .received)
        // Find Information Response, format 1: 0x0004 CCCD (0x2902).
        _ = decode("04 04 00 04 00", .sent)
        _ = decode("05 01 04 00 02 29", .received)
        let db = decoder.gatt[GATTStore.Key(peer: decoder.peer, serverIsPeer: true)]
        XCTAssertEqual(db?.uuid(of: 0x0003), .bit16(0x2a19))
        XCTAssertEqual(db?.uuid(of: 0x0004), .bit16(0x2902))
        XCTAssertEqual(db?.service(containing: 0x0003)?.uuid, .bit16(0x180f))
        XCTAssertEqual(db?.characteristic(owning: 0x0004)?.valueHandle, 0x0003)
        // A notification on 0x0003 now carries its UUID.
        XCTAssertEqual(decode("1b 03 00 64", .received).info.uuid, .bit16(0x2a19))
    }

    func testErrorResponseNamesTheError() {
        let r = decode("01 0a 08 00 0f", .received)
        XCTAssertEqual(r.info.handle, 0x0008)
        XCTAssertEqual(
            r.info.fields.map(\.1),
            [.string("Read Request"), .string("Insufficient Encryption"), .hex(0x0f, digits: 2)])
    }

    func testLongReadIsReassembled() {
        // MTU 23: a Read Response of 22 bytes may continue; Read Blob at offset 22 finishes it.
        _ = decode("0a 10 00", .sent)
        XCTAssertTrue(decode("0b " + String(repeating: "41 ", count: 22), .received).gattValues.isEmpty)
        _ = decode("0c 10 00 16 00", .sent)
        let done = decode("0d 42 43", .received)
        XCTAssertEqual(done.gattValues.map(\.value), [Array(repeating: 0x41, count: 22) + [0x42, 0x43]])
        XCTAssertEqual(done.gattValues.first?.kind, .longRead)
    }

    func testLongWriteIsPutTogetherByOffsetAndFeedsTheStream() {
        _ = decode("16 13 00 03 00 04 05", .sent)
        _ = decode("16 13 00 00 00 01 02 03", .sent)
        let exec = decode("18 01", .sent)
        XCTAssertEqual(exec.gattValues.map(\.value), [[1, 2, 3, 4, 5]])
        XCTAssertEqual(exec.streamValues.map { $0.value.withBytes(in: []) { Array($0) } }, [[1, 2, 3, 4, 5]])
        _ = decode("16 13 00 00 00 09", .sent)
        let cancel = decode("18 00", .sent)
        XCTAssertEqual(cancel.gattValues.first?.kind, .longWriteCancelled)
        XCTAssertTrue(cancel.streamValues.isEmpty)
        XCTAssertEqual(decode("18 01", .sent).diagnostics.map(\.id), ["att.execute_write.empty"])
        _ = decode("16 13 00 05 00 01", .sent)
        XCTAssertEqual(decode("18 01", .sent).diagnostics.map(\.id), ["att.prepare_write.gap"])
    }

    func testValuesThatFeedStreams() {
        XCTAssertEqual(streamValues("52 13 00 a5 01", .sent), [[0xa5, 0x01]])
        XCTAssertEqual(decode("12 13 00 a5", .sent).streamValues.map(\.handle), [0x13])
        XCTAssertEqual(decode("1d 15 00 01", .received).streamValues.map(\.handle), [0x15])
        // Signed Write Command: the last 12 bytes are the signature, not the value.
        XCTAssertEqual(streamValues("d2 13 00 aa bb" + String(repeating: " 00", count: 12), .sent), [[0xaa, 0xbb]])
        // Multiple Handle Value Notification: (handle, length, value) pairs.
        XCTAssertEqual(
            decode("23 15 00 01 00 07 16 00 02 00 08 09", .received).streamValues.map(\.handle), [0x15, 0x16])
        XCTAssertEqual(streamValues("23 15 00 01 00 07 16 00 02 00 08 09", .received), [[0x07], [0x08, 0x09]])
        // A value cut short by the capture is a hole in its stream, not a value.
        XCTAssertEqual(decode("1b 15 00 a5", .received, truncated: true).streamHoles, [0x15])
    }

    func testMalformedAndUnknown() {
        XCTAssertEqual(decode("", .sent).diagnostics.map(\.id), ["att.empty"])
        let short = decode("12 13", .sent)
        XCTAssertEqual(short.diagnostics.map(\.id), ["att.malformed"])
        XCTAssertEqual(short.diagnostics.first?.message, "Write Request: needs 2 bytes at ATT offset 1, only 1 left")
        XCTAssertEqual(decode("09 01 02 00", .received).diagnostics.map(\.id), ["att.malformed"])
        let unknown = decode("3f 01 02", .sent)
        XCTAssertEqual(unknown.info.opcode.name, "Unknown (0x3f)")
        XCTAssertEqual(unknown.info.value, [0x01, 0x02])
        XCTAssertEqual(unknown.undecodedBytes, 2)
        XCTAssertEqual(decode("1b 15", .received, truncated: true).diagnostics, [])
    }
}

extension ATTDecoderTests {
    /// The decoder remembers recent handles' UUIDs, but a discovery after them is seen at once.
    func testAHandleSeenBeforeItsDiscoveryGetsItsUUIDAfterIt() {
        XCTAssertNil(decode("1b 03 00 64", .received).info.uuid)
        XCTAssertNil(decode("1b 03 00 65", .received).info.uuid, "remembered as unknown")
        _ = decode("08 01 00 ff ff 03 28", .sent)
        _ = decode("09 07 02 00 12 03 00 19 2a", .received)
        XCTAssertEqual(decode("1b 03 00 66", .received).info.uuid, .bit16(0x2a19))
    }

    /// A PDU's stream values are lent in order, the first kept inline and the rest in an array.
    func testStreamValuesAreLentInOrder() {
        for n in [0, 1, 3] {
            var list = InlineList<(handle: UInt16, value: ArraySlice<UInt8>)>()
            for i in 0..<n { list.append((UInt16(i), [UInt8(i)][...])) }
            var lent: [UInt16] = []
            list.forEachLent { handle, value in
                lent.append(handle)
                XCTAssertEqual(Array(value), [UInt8(handle)])
            }
            XCTAssertEqual(lent, (0..<n).map(UInt16.init))
            XCTAssertEqual(lent, list.map(\.handle))
        }
    }
}
