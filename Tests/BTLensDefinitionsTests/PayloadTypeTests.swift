import BTLensCore
import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// Varints, 24-bit integers, floats, zero-terminated and padded text and times, from hex vectors
/// of their public specifications.
final class PayloadTypeTests: XCTestCase {
    func decoded(_ seq: String, _ hex: String, extra: String = "") throws -> DecodedMessage {
        let d = try DefinitionParser.parse(
            text: "protocol: tt\n\(extra)\nmessages:\n  - id: 1\n    name: M\n    seq:\n\(seq)", file: "t.yaml")
        return d.decode(
            Message(command: 1, flags: nil, payload: Hex.bytes(hex) ?? [], direction: .sent, characteristic: nil))
    }

    func text(_ seq: String, _ hex: String, extra: String = "") throws -> String {
        MessageField.describe(try decoded(seq, hex, extra: extra).fields)
    }

    func error(_ seq: String) -> String {
        do {
            _ = try DefinitionParser.parse(
                text: "protocol: tt\nmessages:\n  - id: 1\n    name: M\n    seq:\n\(seq)", file: "x.yaml")
            return "no error"
        } catch {
            return error.description
        }
    }

    /// protobuf.dev, "Encoding": 150 is 96 01; zigzag (sint64) maps -1, 1, -2 to 1, 2, 3; the
    /// largest 64-bit value takes 10 bytes.
    func testVarintsAreLEB128AndSvarintsZigzag() throws {
        let seq = """
                  - {id: a, type: vlq}
                  - {id: b, type: varint}
                  - {id: c, type: svarint}
                  - {id: d, type: svarint}
                  - {id: e, type: svarint}
                  - {id: f, type: vlq}
                  - {id: g, type: svarint}
            """
        let m = try decoded(seq, "9601 00 01 02 03 ffffffffffffffffff01 ffffffffffffffffff01")
        XCTAssertEqual(
            MessageField.describe(m.fields), "a=150 b=0 c=-1 d=1 e=-2 f=18446744073709551615 g=-9223372036854775808")
        XCTAssertEqual(m.problems, [])
    }

    /// A varint that runs past 10 bytes or past the payload stops the message there: what follows
    /// has no known start.
    func testAVarintTooLongOrCutOffIsInvalidAtItsOffset() throws {
        let seq = "      - {id: a, type: u1}\n      - {id: n, type: vlq}\n      - {id: b, type: u1}\n"
        for (hex, why) in [
            ("07 8080808080808080808001 05", "is a varint longer than 10 bytes"), ("07 ff80", "is a varint cut off"),
        ] {
            let m = try decoded(seq, hex)
            XCTAssertEqual(MessageField.describe(m.fields), "a=7", hex)
            XCTAssertEqual(m.problems.map(\.message), ["M: n \(why) at payload offset 1"], hex)
            XCTAssertEqual(m.problems.map(\.id), ["a5.field.invalid"], hex)
        }
    }

    func testAVarintSizesRepeatsSwitchesAndTakesEnumsAndValid() throws {
        let seq = """
                  - {id: n, type: vlq}
                  - {id: items, type: u1, repeat: n}
                  - {id: len, type: varint, valid: {max: 3}}
                  - {id: name, type: str, size: len}
                  - {id: mode, type: svarint, enum: mode}
                  - id: body
                    type: {switch-on: mode, cases: {-1: u2be, _: bytes}}
            """
        XCTAssertEqual(
            try text(seq, "02 0a0b 02 6869 01 0102", extra: "enums: {mode: {-1: off}}"),
            #"n=2 items=[10 11] len=2 name="hi" mode=off body=258"#)
        let bad = try decoded(seq, "00 04 68696a6b 02", extra: "enums: {mode: {-1: off}}")
        XCTAssertEqual(bad.problems.map(\.message), ["M: len is 4; expected …3"])
    }

    /// Kaitai Struct's u3le/u3be/s3le/s3be; `u3` by the file's `endian`.
    func testTwentyFourBitIntegers() throws {
        let seq = """
                  - {id: a, type: u3le}
                  - {id: b, type: u3be}
                  - {id: c, type: s3be}
                  - {id: d, type: s3le}
                  - {id: e, type: u3}
            """
        XCTAssertEqual(
            try text(seq, "010203 010203 fffffe 000080 010203", extra: "endian: be"),
            "a=197121 b=66051 c=-2 d=-8388608 e=66051")
    }

    /// IEEE 754-2008 binary16, binary32 and binary64, each in the shortest form that reads back as
    /// the same value of its width: binary32's 0x3dcccccd is 0.1, binary16's largest (0x7bff,
    /// 65504) 65500.
    func testFloatsOfEveryWidthInTheirShortestForm() throws {
        let seq = """
                  - {id: one, type: f2le}
                  - {id: max, type: f2be}
                  - {id: third, type: f2be}
                  - {id: tenth, type: f4be}
                  - {id: volts, type: f4le, unit: V}
                  - {id: pi, type: f8be}
                  - {id: big, type: f8le}
            """
        let m = try decoded(seq, "003c 7bff 3555 3dcccccd 0000c03f 400921fb54442d18 50efe2d6e41a4b44")
        XCTAssertEqual(
            MessageField.describe(m.fields),
            "one=1 max=65500 third=0.3333 tenth=0.1 volts=1.5V pi=3.141592653589793 big=1e+21")
        XCTAssertEqual(m.fields[3].value, .measure(0.1, unit: nil))
    }

    /// Every finite binary16 value reads back as itself, in no more digits than Swift's Float16
    /// prints (where Float16 exists to check against).
    func testEveryBinary16ValueReadsBack() {
        #if !(os(macOS) && arch(x86_64))
        let spec = FieldSpec(name: "h", type: .float(width: 2, bigEndian: false))
        for bits in 0...UInt16.max where Float16(bitPattern: bits).isFinite {
            guard case .measure(let d, _) = FieldDecoder.float(UInt64(bits), width: 2, spec) else {
                return XCTFail("\(bits) is not a number")
            }
            let h = Float16(bitPattern: bits)
            XCTAssertEqual(Float16(d), h, "\(bits)")
            let digits = { (x: Double) in String(x).prefix { $0 != "e" }.filter(\.isNumber).drop { $0 == "0" }.count }
            XCTAssertLessThanOrEqual(digits(d), digits(Double(String(h)) ?? 0), "\(bits)")
        }
        #endif
    }

    /// NaN and the infinities have no JSON number: they are the strings nan, inf and -inf, in the
    /// text as in JSON.
    func testNaNAndInfinitiesAreNamed() throws {
        let seq = """
                  - {id: a, type: f4be}
                  - {id: b, type: f4be}
                  - {id: c, type: f2be}
                  - {id: d, type: f8be}
            """
        let m = try decoded(seq, "7fc00000 ff800000 7c00 7ff0000000000001")
        XCTAssertEqual(MessageField.describe(m.fields), "a=nan b=-inf c=inf d=nan")
        var json = JSONWriter()
        json.beginObject()
        json.put(fields: m.fields)
        json.endObject()
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), #"{"a":"nan","b":"-inf","c":"inf","d":"nan"}"#)
    }

    /// Kaitai Struct's `strz`: UTF-8 to the first 00, which is read; within `size` when given.
    func testZeroTerminatedText() throws {
        let seq = """
                  - {id: a, type: strz}
                  - {id: b, type: strz}
                  - {id: c, type: strz, size: 4}
                  - {id: d, type: strz, size: 2}
                  - {id: e, type: strz}
            """
        let m = try decoded(seq, "414200 00 43004444 ff00 4546")
        XCTAssertEqual(MessageField.describe(m.fields), #"a="AB" b="" c="C" d=ff e="EF""#)
        XCTAssertEqual(m.problems.map(\.message), ["M: e has no 00 terminator at payload offset 10"])
    }

    /// A fixed-size `str` with `pad-right: 0` shows without its padding (Kaitai Struct's pad-right).
    func testPaddedText() throws {
        let seq = """
                  - {id: a, type: str, size: 8, pad-right: 0}
                  - {id: b, type: str, size: 3, pad-right: 0x20}
                  - {id: c, type: str, size: 2, pad-right: 0}
                  - {id: d, type: str, size: 2, pad-right: 0}
            """
        XCTAssertEqual(try text(seq, "5761746368000000 412020 0000 ff00"), #"a="Watch" b="A" c="" d=ff"#)
    }

    /// Unix times (seconds, milliseconds or microseconds since 1970-01-01T00:00:00Z, POSIX.1
    /// "Seconds Since the Epoch") as ISO 8601 UTC; 1709294400 is 2024-03-01T12:00:00Z.
    func testTimesAreISO8601() throws {
        let seq = """
                  - {id: a, type: u4be, time: unix-s}
                  - {id: b, type: u8be, time: unix-ms}
                  - {id: c, type: u8be, time: unix-us}
                  - {id: d, type: u4be, time: unix-s}
                  - {id: e, type: vlq, time: unix-s}
            """
        let m = try decoded(seq, "65e1c340 0000018df9e2b27b 00000000000f4241 38bb0c00 00")
        XCTAssertEqual(
            MessageField.describe(m.fields),
            "a=2024-03-01T12:00:00Z b=2024-03-01T12:00:00.123Z c=1970-01-01T00:00:01.000001Z"
                + " d=2000-02-29T00:00:00Z e=1970-01-01T00:00:00Z")
        XCTAssertEqual(m.fields[0].value, .enumerated("2024-03-01T12:00:00Z", raw: 1_709_294_400))
        XCTAssertEqual(m.problems, [])
    }

    func testTimesBefore1970OrAfter9999AreShownRawAndInvalid() throws {
        let seq = """
                  - {id: last, type: s8be, time: unix-s}
                  - {id: after, type: s8be, time: unix-s}
                  - {id: before, type: s4be, time: unix-ms}
            """
        let m = try decoded(seq, "0000003afff4417f 0000003afff44180 ffffffff")
        XCTAssertEqual(MessageField.describe(m.fields), "last=9999-12-31T23:59:59Z after=253402300800 before=-1")
        XCTAssertEqual(
            m.problems.map(\.message),
            [
                "M: after is 253402300800; expected a time from 1970 to 9999",
                "M: before is -1; expected a time from 1970 to 9999",
            ])
    }

    /// Kaitai Struct's b1 … b64 (bit-endian be): bits most significant first, consecutive bit
    /// fields sharing bytes, a field of another type starting at the next byte.
    func testBitFieldsShareBytesAndRealign() throws {
        let seq = """
                  - {id: op, type: b4, enum: op}
                  - {id: n, type: b4}
                  - {id: long, type: b12}
                  - {id: short, type: b4, valid: {max: 12}}
                  - {id: flag, type: b1, flags: {1: set}}
                  - {id: three, type: b3}
                  - {id: next, type: u1}
                  - {id: items, type: b2, repeat: n}
                  - {id: wide, type: b64}
            """
        // wide: the 2 bits 6c left (00), then 62 of the next 8 bytes.
        let m = try decoded(seq, "a3 abcd e0 07 6c 8000000000000001", extra: "enums: {op: {10: write}}")
        XCTAssertEqual(
            MessageField.describe(m.fields),
            "op=write n=3 long=2748 short=13 flag=[set] three=6 next=7 items=[1 2 3] wide=2305843009213693952")
        XCTAssertEqual(
            m.problems.map(\.message), ["M: short is 13; expected …12"])
    }

    func testPayloadTypesAreCheckedAtLoad() {
        let cases = [
            ("      - {id: a, type: vlq, size: 2}\n", "x.yaml:6: field 'a': a varint (vlq) takes no size"),
            ("      - {id: a, type: b3, size: 2}\n", "x.yaml:6: field 'a': a bit field (b3) takes no size"),
            (
                "      - {id: a, type: b3, repeat: eos}\n",
                "x.yaml:6: field 'a': a bit field repeats a count or a field's value, not to eos"
            ),
            (
                "      - {id: a, type: b65}\n",
                "x.yaml:6: field 'a': unknown type 'b65'; expected \(DefinitionParser.Parser.typeNames)"
            ),
            ("      - {id: a, type: f4le, size: 2}\n", "x.yaml:6: field 'a': a float type (f4le) takes no size"),
            ("      - {id: a, type: f4le, enum: e}\n", "x.yaml:6: field 'a': 'enum' applies to integer fields only"),
            (
                "      - {id: a, type: str, unit: V}\n",
                "x.yaml:6: field 'a': 'unit' applies to integer and float fields only"
            ),
            (
                "      - {id: a, type: str, time: unix-s}\n",
                "x.yaml:6: field 'a': 'time' applies to integer fields only"
            ),
            (
                "      - {id: a, type: u4le, time: unix-h}\n",
                "x.yaml:6: field 'a': time 'unix-h'; expected unix-s, unix-ms or unix-us"
            ),
            (
                "      - {id: a, type: u4le, time: unix-s, unit: s}\n",
                "x.yaml:6: field 'a': 'time' is shown as a time: it takes no enum, flags, unit, scale or offset"
            ),
            (
                "      - {id: a, type: strz, pad-right: 0}\n",
                "x.yaml:6: field 'a': 'pad-right' applies to str fields with a size only"
            ),
            (
                "      - {id: a, type: str, pad-right: 0}\n",
                "x.yaml:6: field 'a': 'pad-right' applies to str fields with a size only"
            ),
            (
                "      - {id: a, type: str, size: 2, pad-right: 256}\n",
                "x.yaml:6: field 'a': pad-right 256 is not a byte (0…255)"
            ),
            (
                "      - {id: a, type: f3le}\n",
                "x.yaml:6: field 'a': unknown type 'f3le'; expected \(DefinitionParser.Parser.typeNames)"
            ),
        ]
        for (seq, message) in cases { XCTAssertEqual(error(seq), message, seq) }
    }
}
