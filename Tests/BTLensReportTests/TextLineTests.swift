import BTLensCore
import XCTest

@testable import BTLensReport

/// The timeline's byte builder writes each piece exactly as the String forms the rest of btlens
/// uses (String(n), Hex.value, Hex.spaced, Timestamp.offset): its lines must not drift from them.
final class TextLineTests: XCTestCase {
    func piece(_ build: (inout TextLine) -> Void) -> String {
        var line = TextLine()
        build(&line)
        return line.string
    }

    func testDecimalsMatchStringForm() {
        for n in [0, 7, 9, 10, 99, 100, 12_345, 1_000_000, Int.max, -1, -10, Int.min] {
            XCTAssertEqual(piece { $0.decimal(n) }, String(n))
        }
        for n: UInt8 in [0, 9, 10, 255] { XCTAssertEqual(piece { $0.decimal(n) }, String(n)) }
    }

    func testHexMatchesHexValue() {
        for v: UInt16 in [0, 0x5, 0x1f, 0x100, 0xffff] {
            for width in [1, 2, 4] { XCTAssertEqual(piece { $0.hex(v, width: width) }, Hex.value(v, width: width)) }
        }
        XCTAssertEqual(piece { $0.hex(UInt8(0x0a), width: 2) }, "0x0a")
        for v: UInt16 in [0, 0xfee1, 0x2a19] {
            XCTAssertEqual(piece { $0.hexDigits(v, width: 4) }, BluetoothUUID.bit16(v).description)
        }
    }

    func testSpacedHexMatchesHexSpaced() {
        for bytes: [UInt8] in [[], [0], [0xa5, 0x01, 0x20], Array(0...255)] {
            XCTAssertEqual(piece { $0.spacedHex(bytes) }, Hex.spaced(bytes))
            XCTAssertEqual(piece { $0.spacedHex(bytes.prefix(64)) }, Hex.spaced(bytes.prefix(64)))
        }
    }

    func testOffsetsAreRightAlignedOffsetForms() {
        let origin = Timestamp(microseconds: 1_510_394_584_000_000)
        for delta: Int64 in [0, 1, 999_999, 1_000_000, 1_234_567, -1, -2_500_000, 86_400_000_000, 99_999_999_999_999] {
            let t = Timestamp(microseconds: origin.microseconds + delta)
            let text = t.offset(from: origin)
            XCTAssertEqual(
                piece { $0.offset(t, from: origin, width: 12) },
                String(repeating: " ", count: max(0, 12 - text.count)) + text)
        }
        let far = Timestamp(microseconds: .min)
        XCTAssertEqual(piece { $0.offset(far, from: Timestamp(microseconds: .max), width: 12) }, "           ?")
        XCTAssertEqual(Timestamp(microseconds: .min).offset(from: Timestamp(microseconds: .max)), "?")
    }

    /// Pieces are written in place in room the line keeps: a line that outgrows it, piece by
    /// piece, and one line copied into another, keep every byte; reset empties it.
    func testLinesGrowPastTheirRoomAndNest() {
        var inner = TextLine()
        var expected = ""
        for i in 0..<120 {
            inner.decimal(i)
            inner.add(" ")
            expected += "\(i) "
        }
        var outer = TextLine()
        outer.add("[")
        outer.add(inner)
        outer.spaces(3)
        outer.add("]")
        XCTAssertEqual(inner.string, expected)
        XCTAssertEqual(outer.string, "[" + expected + "   ]")
        outer.reset()
        outer.add(text: "é")
        XCTAssertEqual(outer.string, "é")
    }
}
