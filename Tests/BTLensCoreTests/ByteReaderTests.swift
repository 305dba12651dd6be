import BTLensCore
import XCTest

final class ByteReaderTests: XCTestCase {
    func testReadsEachWidthInBothByteOrders() throws {
        var r = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b])
        XCTAssertEqual(try r.u8(), 0x01)
        XCTAssertEqual(try r.u16le(), 0x0302)
        XCTAssertEqual(try r.u16be(), 0x0405)
        XCTAssertEqual(try r.u32be(), 0x0607_0809)
        XCTAssertEqual(r.remaining, 2)
        XCTAssertEqual(Array(r.rest()), [0x0a, 0x0b])
        XCTAssertTrue(r.isAtEnd)
        var s = ByteReader([0x78, 0x56, 0x34, 0x12, 0xf0, 0xde, 0xbc, 0x9a])
        XCTAssertEqual(try s.u64le(), 0x9abc_def0_1234_5678)
        var t = ByteReader([0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02])
        XCTAssertEqual(try t.u64be(), 0x1_0000_0002)
        var u = ByteReader([0x01, 0x02, 0x03, 0xff])
        XCTAssertEqual(try u.u24le(), 0x030201)
        XCTAssertEqual(try u.i8(), -1)
    }

    func testAShortReadNamesWhereAndHowMuch() {
        var r = ByteReader([0x01, 0x02, 0x03])
        _ = try? r.u8()
        XCTAssertThrowsError(try r.u32le()) { e in
            XCTAssertEqual(e as? ShortRead, ShortRead(offset: 1, needed: 4, available: 2))
        }
        XCTAssertEqual(r.offset, 1, "a failed read consumes nothing")
        XCTAssertThrowsError(try r.bytes(-1))
        XCTAssertThrowsError(try r.skip(3))
        XCTAssertEqual(Array(try r.bytes(2)), [0x02, 0x03])
        XCTAssertThrowsError(try r.u8())
        XCTAssertNil(r.peek())
    }

    func testSlicesKeepOffsetsRelativeToTheirStart() throws {
        let base: [UInt8] = [0xaa, 0xbb, 0x01, 0x02]
        var r = ByteReader(base[2...])
        XCTAssertEqual(r.peek(1), 0x02)
        XCTAssertEqual(try r.u16le(), 0x0201)
    }

    func testRemainingIndicesAreWhereRestLies() throws {
        let base: [UInt8] = [0xaa, 0xbb, 0x01, 0x02, 0x03]
        for read in 0...4 {
            var r = ByteReader(base[1...])
            try r.skip(read)
            let indices = r.remainingIndices
            XCTAssertEqual(indices, 1 + read..<5)
            XCTAssertEqual(Array(base[indices]), Array(r.rest()))
        }
    }

    /// An ACL header, handle 0x0040 with PB flags 10 (first automatically flushable) and length 7:
    /// 40 20 07 00, read in place from a slice that does not start at 0, as a record's payload does.
    func testAUInt16ReadInPlaceIsWhereAReaderFindsIt() throws {
        let base: [UInt8] = [0x02, 0x40, 0x20, 0x07, 0x00, 0x05]
        let header = base[1...]
        XCTAssertEqual(ByteReader.u16le(in: header, at: 0), 0x2040)
        XCTAssertEqual(ByteReader.u16le(in: header, at: 2), 0x0007)
        for offset in -1...5 {
            var r = ByteReader(header)
            let read = try? { () throws(ShortRead) -> UInt16 in
                try r.skip(offset)
                return try r.u16le()
            }()
            XCTAssertEqual(ByteReader.u16le(in: header, at: offset), offset < 0 ? nil : read, "offset \(offset)")
        }
        XCTAssertNil(ByteReader.u16le(in: base[6...], at: 0))
        XCTAssertNil(ByteReader.u16le(in: base[5...], at: 0))
    }
}

final class ValueTests: XCTestCase {
    func testTimestampsPrintAsUTC() {
        XCTAssertEqual(Timestamp(microseconds: 0).iso8601, "1970-01-01T00:00:00.000000Z")
        XCTAssertEqual(Timestamp(microseconds: 1_510_394_584_123_456).iso8601, "2017-11-11T10:03:04.123456Z")
        XCTAssertEqual(Timestamp(microseconds: -1).iso8601, "1969-12-31T23:59:59.999999Z")
        XCTAssertEqual(Timestamp(microseconds: 951_782_400_000_000).iso8601, "2000-02-29T00:00:00.000000Z")
        XCTAssertEqual(Timestamp(microseconds: 2_500_001).offset(from: Timestamp(microseconds: 1)), "2.500000")
        XCTAssertEqual(Timestamp(microseconds: 0).offset(from: Timestamp(microseconds: 100)), "-0.000100")
        XCTAssertEqual(Timestamp(microseconds: .min).offset(from: Timestamp(microseconds: .max)), "?")
    }

    func testHex() {
        XCTAssertEqual(Hex.string([0xa5, 0x01, 0x0f]), "a5010f")
        XCTAssertEqual(Hex.spaced([0xa5, 0x01]), "a5 01")
        XCTAssertEqual(Hex.value(UInt16(0x40), width: 4), "0x0040")
        XCTAssertEqual(Hex.bytes("A5 01 cf"), [0xa5, 0x01, 0xcf])
        XCTAssertNil(Hex.bytes("a5 0"))
        XCTAssertNil(Hex.bytes("zz"))
    }

    /// The one hex encoder, from contiguous bytes and from a collection that is not contiguous,
    /// against digits spelled out; and the decimal digit writer.
    func testHexAndDecimalWriters() {
        let all = Array(UInt8.min...UInt8.max)
        let spelled = all.map { b in
            String("0123456789abcdef".map { $0 }[Int(b >> 4)]) + String("0123456789abcdef".map { $0 }[Int(b & 0x0f)])
        }
        XCTAssertEqual(Hex.string(all), spelled.joined())
        XCTAssertEqual(Hex.spaced(all[1...3]), "01 02 03")
        XCTAssertEqual(Hex.spaced(all.reversed().prefix(3)), "ff fe fd")
        XCTAssertEqual(Hex.string([UInt8]()), "")
        XCTAssertEqual(Hex.spaced([UInt8]()), "")
        XCTAssertEqual(Hex.value(UInt64.max, width: 4), "0xffffffffffffffff")
        XCTAssertEqual(Hex.value(UInt8(0), width: 0), "0x0")
        // Digits are written a pair at a time from the right: odd counts, and widths past 16 digits.
        XCTAssertEqual(Hex.value(UInt32(0x12345), width: 1), "0x12345")
        XCTAssertEqual(Hex.value(UInt64(0xabc), width: 20), "0x" + String(repeating: "0", count: 17) + "abc")
        XCTAssertEqual(Hex.value(UInt64.max, width: 17), "0x0ffffffffffffffff")
        // Digits are counted against powers of ten: each one and the number below it, up to 10^19.
        let powers = (1...19).map { p in (0..<p).reduce(UInt64(1)) { power, _ in power * 10 } }
        for n: UInt64 in [0, 12_345, UInt64.max] + powers.flatMap({ [$0 - 1, $0] }) {
            XCTAssertEqual(DecimalDigits.count(n), String(n).count)
            var out = [UInt8](repeating: 0, count: 24)
            out.withUnsafeMutableBufferPointer { DecimalDigits.write(n, count: 24, into: $0.baseAddress!) }
            XCTAssertEqual(
                String(decoding: out, as: UTF8.self), String(repeating: "0", count: 24 - String(n).count) + String(n))
        }
    }

    /// Unseparated hex is written 16 bytes at a time, the last block overlapping the one before:
    /// every length from 0 to 70 and every start within a block, against digits spelled out, and
    /// not a byte past the digits.
    func testHexOfEveryLengthAroundTheBlocks() {
        let digits = Array("0123456789abcdef")
        let bytes = (0..<90).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for start in 0..<16 {
            for count in 0...70 {
                let slice = bytes[start..<start + count]
                let spelled = String(slice.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
                XCTAssertEqual(Hex.string(slice), spelled, "\(count) bytes from \(start)")
                var out = [UInt8](repeating: 0xee, count: 2 * count + 8)
                let written = out.withUnsafeMutableBufferPointer { Hex.write(slice, into: $0.baseAddress!) }
                XCTAssertEqual(written, 2 * count)
                XCTAssertEqual(out[(2 * count)...].filter { $0 != 0xee }, [], "wrote past the digits")
            }
        }
    }

    func testUUIDsOnTheBaseUUIDShrinkTo16Bits() throws {
        // 0000180f-0000-1000-8000-00805f9b34fb, little-endian as ATT carries it.
        let battery: [UInt8] = [
            0xfb, 0x34, 0x9b, 0x5f, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x18, 0x00, 0x00,
        ]
        XCTAssertEqual(BluetoothUUID(littleEndian128: battery), .bit16(0x180f))
        let vendor: [UInt8] = Array(1...16)
        XCTAssertEqual(BluetoothUUID(littleEndian128: vendor).description, "100f0e0d-0c0b-0a09-0807-060504030201")
        // 128 bits are kept in two words: the same UUID from its bytes either way round, and its words.
        XCTAssertEqual(BluetoothUUID(littleEndian128: vendor), .bit128(Array(vendor.reversed())))
        XCTAssertEqual(
            BluetoothUUID.bit128(Array(vendor.reversed())),
            .bit128(high: 0x100f_0e0d_0c0b_0a09, low: 0x0807_0605_0403_0201))
        XCTAssertNotEqual(BluetoothUUID.bit128(Array(vendor.reversed())), .bit128(Array(vendor)))
        XCTAssertEqual(BluetoothUUID.bit128([0xab, 0xcd]).description, "00000000-0000-0000-0000-00000000abcd")
        var r = ByteReader([0x19, 0x2a])
        XCTAssertEqual(try BluetoothUUID.read(&r, size: 2)?.description, "2a19")
        var bad = ByteReader([0x19, 0x2a, 0x00])
        XCTAssertNil(try BluetoothUUID.read(&bad, size: 3))
    }

    func testAddressesPrintMostSignificantFirst() throws {
        var r = ByteReader([0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        XCTAssertEqual(try BDAddr(&r).description, "AA:BB:CC:11:22:33")
        // Held as one word: the wire bytes come back, and order is by the most significant byte first.
        let a = BDAddr(wire: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        XCTAssertEqual(a.wire, [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        XCTAssertLessThan(
            BDAddr(wire: [0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), BDAddr(wire: [0x00, 0x00, 0x00, 0x00, 0x00, 0x02]))
        XCTAssertEqual(BDAddr(wire: [1, 2, 3, 4, 5, 6]), BDAddr(wire: [1, 2, 3, 4, 5, 6, 7]))
    }
}

final class StreamBufferTests: XCTestCase {
    func testAppendConsumeAndReclaim() {
        var b = StreamBuffer()
        b.append([1, 2, 3, 4])
        b.consume(3)
        XCTAssertEqual(b.count, 1)
        XCTAssertEqual(b[0], 4)
        b.append([5, 6])  // reclaims the 3 consumed bytes first
        XCTAssertEqual(Array(b.bytes(0..<3)), [4, 5, 6])
        XCTAssertEqual(b.firstIndex(of: 6), 2)
        XCTAssertEqual(b.firstIndex(of: 4, from: 1), nil)
        b.consume(10)  // never past the end
        XCTAssertTrue(b.isEmpty)
        b.append([7])
        b.removeAll()
        XCTAssertEqual(b.count, 0)
    }

    /// Appends of every kind (arrays, slices, ranges that have no contiguous storage) and consumes
    /// of every size, against a plain array: the room is reused, moved to the front and grown.
    func testMatchesAPlainArrayThroughReuseAndGrowth() {
        var b = StreamBuffer()
        var model: [UInt8] = []
        var next: UInt8 = 0
        for step in 0..<400 {
            let n = (step * 7) % 23
            let chunk = (0..<n).map { i in next &+ UInt8(truncatingIfNeeded: i) }
            next &+= UInt8(truncatingIfNeeded: n)
            switch step % 3 {
            case 0: b.append(chunk)
            case 1: b.append(([0xee] + chunk + [0xee])[1..<n + 1])
            default: b.append(chunk.lazy.map { $0 })
            }
            model += chunk
            let eat = (step * 5) % 17
            b.consume(eat)
            model.removeFirst(min(eat, model.count))
            XCTAssertEqual(b.count, model.count)
            XCTAssertEqual(Array(b.bytes(0..<b.count)), model, "step \(step)")
        }
    }
}

/// Arithmetic on values from input clamps instead of trapping (docs/limits.md, "Arithmetic on input").
final class SaturatingTests: XCTestCase {
    func testEachOperationClampsToTheNearestEnd() {
        XCTAssertEqual(Int64.max.saturatingAdding(1), .max)
        XCTAssertEqual(Int64.min.saturatingAdding(-1), .min)
        XCTAssertEqual(Int64(5).saturatingAdding(-7), -2)
        XCTAssertEqual(Int64.min.saturatingSubtracting(1), .min)
        XCTAssertEqual(Int64.max.saturatingSubtracting(-1), .max)
        XCTAssertEqual(Int64(0).saturatingSubtracting(.min), .max)
        XCTAssertEqual(UInt32(3).saturatingSubtracting(5), 0)
        XCTAssertEqual(UInt32.max.saturatingAdding(1), .max)
        XCTAssertEqual(Int64.max.saturatingMultiplying(by: -2), .min)
        XCTAssertEqual(Int64.min.saturatingMultiplying(by: -1), .max)
        XCTAssertEqual(Int64(-4).saturatingMultiplying(by: 3), -12)
    }

    func testElapsedTimeBetweenAnyTwoTimes() {
        let early = Timestamp(microseconds: .min)
        let late = Timestamp(microseconds: .max)
        XCTAssertEqual(late.elapsed(since: early), .max)
        XCTAssertEqual(early.elapsed(since: late), .min)
        XCTAssertEqual(Timestamp(microseconds: 10).elapsed(since: Timestamp(microseconds: 4)), 6)
    }
}
