import BTLensCore
import XCTest

@testable import BTLensDissect

/// What by-type PDUs name, as data beside their fields' text (Core Vol 3 Part F §3.4.3.3,
/// §3.4.4.1, §3.4.4.2, §3.4.4.9): the report reads a Device Name from them without parsing text.
final class ATTByTypeTests: XCTestCase {
    var decoder = ATTDecoder(gatt: GATTStore(), peer: .connection(ConnectionKey(index: 0, handle: 0x40)))

    func decode(_ hex: String, _ direction: Direction) -> ATTInfo {
        var result = ATTResult()
        var reader = ByteReader(Hex.bytes(hex) ?? [])
        decoder.decode(&reader, direction: direction, record: 1, truncated: false, into: &result)
        return result.info
    }

    func testRequestsGiveTheirAttributeType() {
        // §3.4.4.1 Read By Type Request 0x0001–0xffff, Device Name (0x2a00).
        XCTAssertEqual(decode("08 01 00 ff ff 00 2a", .sent).byType, .attributeType(.bit16(0x2a00)))
        // The same type as a 128-bit UUID on the Bluetooth base: the same UUID.
        XCTAssertEqual(
            decode("08 01 00 ff ff fb 34 9b 5f 80 00 00 80 00 10 00 00 00 2a 00 00", .sent).byType,
            .attributeType(.bit16(0x2a00)))
        // §3.4.4.9 Read By Group Type Request, Primary Service (0x2800).
        XCTAssertEqual(decode("10 01 00 ff ff 00 28", .sent).byType, .attributeType(.bit16(0x2800)))
        // §3.4.3.3 Find By Type Value Request: Primary Service (0x2800) with the value 0x180f.
        XCTAssertEqual(decode("06 01 00 ff ff 00 28 0f 18", .sent).byType, .attributeType(.bit16(0x2800)))
        // A type of 3 bytes is no UUID: none is given. Find Information names no type.
        XCTAssertNil(decode("08 01 00 ff ff 00 2a 00", .sent).byType)
        XCTAssertNil(decode("04 01 00 ff ff", .sent).byType)
    }

    func testReadByTypeResponseGivesItsHandleValuePairs() {
        // §3.4.4.2: length 9, handle 0x0003 with "Polar H" (7 bytes), the answer to a Device Name request.
        _ = decode("08 01 00 ff ff 00 2a", .sent)
        let name = decode("09 09 03 00 50 6f 6c 61 72 20 48", .received)
        XCTAssertEqual(name.byType, .attributeData([ATTAttributeData(handle: 0x0003, value: Array("Polar H".utf8))]))
        XCTAssertEqual(name.fields.first?.1, .string("0x0003 \"Polar H\""))
        // Characteristic declarations (length 7): each declaration's value as it came.
        _ = decode("08 01 00 ff ff 03 28", .sent)
        XCTAssertEqual(
            decode("09 07 02 00 12 03 00 19 2a 05 00 02 06 00 00 2a", .received).byType,
            .attributeData([
                ATTAttributeData(handle: 0x0002, value: [0x12, 0x03, 0x00, 0x19, 0x2a]),
                ATTAttributeData(handle: 0x0005, value: [0x02, 0x06, 0x00, 0x00, 0x2a]),
            ]))
        // A ragged list is malformed: no pairs, as no text.
        _ = decode("08 01 00 ff ff 00 2a", .sent)
        XCTAssertNil(decode("09 04 03 00 41 42 05 00", .received).byType)
    }

    /// Most PDUs have none, and an info with one is no larger: events keep their size.
    func testOtherPDUsHaveNoneAndTheInfoKeepsItsSize() {
        XCTAssertNil(decode("1b 03 00 64", .received).byType)
        XCTAssertNil(decode("0a 03 00", .sent).byType)
        XCTAssertLessThanOrEqual(MemoryLayout<ATTInfo>.size, 80)
        XCTAssertLessThanOrEqual(MemoryLayout<EventBody>.size, 80)
    }
}
