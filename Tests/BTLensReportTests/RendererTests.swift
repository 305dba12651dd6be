import BTLensTestSupport
import XCTest

@testable import BTLensCore
@testable import BTLensDissect
@testable import BTLensReport

final class RendererTests: XCTestCase {
    let frame = Frame(
        version: 1, command: 0x20, sequence: 7, flags: 0, payload: [0x01], checksum: 0xcf, expectedChecksum: 0xcf)

    func a5Event() -> Event {
        Event(
            record: 12, timestamp: Timestamp(microseconds: 1_510_394_584_000_001), direction: .sent, connection: 0x40,
            isTop: true, body: .frame(FrameInfo(frame: frame, transport: .att, attHandle: 0x13, uuid: .bit16(0xfff3))))
    }

    func testA5LineFollowsTheContract() {
        let line = String(decoding: JSONLRenderer().render(a5Event()) ?? [], as: UTF8.self)
        XCTAssertEqual(
            line,
            #"{"type":"a5","record":12,"time":"2017-11-11T10:03:04.000001Z","direction":"sent","transport":"att","connection":64,"att_handle":19,"uuid":"fff3","command":32,"sequence":7,"flags":0,"payload":"01","checksum_ok":true,"version":1,"checksum":207}"#
                + "\n")
    }

    /// A dissector's keys are written only with what it decoded: a frame named by a dissector
    /// that decoded nothing is a plain frame.
    func testDissectorKeysOnlyWithADecodedMessage() {
        func line(_ decoded: DecodedMessage?) -> String {
            let info = FrameInfo(
                frame: frame, transport: .att, attHandle: 0x13, uuid: .bit16(0xfff3), dissector: "d", decoded: decoded)
            let e = Event(
                record: 12, timestamp: Timestamp(microseconds: 0), direction: .sent, connection: 0x40, isTop: true,
                body: .frame(info))
            return String(decoding: JSONLRenderer().render(e) ?? [], as: UTF8.self)
        }
        XCTAssertFalse(line(nil).contains("dissector"))
        XCTAssertTrue(
            line(DecodedMessage(name: "Set", fields: [MessageField("a", .int(1))])).contains(
                #""dissector":"d","command_name":"Set","fields":{"a":1},"flags_names":[]"#))
    }

    func testDiagnosticLineFollowsTheContract() {
        let d = Diagnostic(
            FramingDiagnostics.sequenceGap, "expected sequence 8, got 10: 2 frames missing",
            fields: [("expected", .int(8)), ("actual", .int(10)), ("missing", .int(2))])
        let e = Event(
            record: 5, timestamp: Timestamp(microseconds: 0), direction: nil, connection: nil, isTop: true,
            body: .diagnostic(d))
        let line = String(decoding: JSONLRenderer().render(e) ?? [], as: UTF8.self)
        XCTAssertEqual(
            line,
            #"{"type":"diagnostic","id":"a5.sequence.gap","severity":"warning","record":5,"time":"1970-01-01T00:00:00.000000Z","direction":null,"message":"expected sequence 8, got 10: 2 frames missing","expected":8,"actual":10,"missing":2}"#
                + "\n")
    }

    /// Latencies are written from integer microseconds: the same text as the Double they stand for.
    func testMillisecondsFromMicrosecondsWriteWhatTheDoubleWould() {
        var rng = SplitMix(seed: 7)
        var values: [Int64] = [0, 1, -1, 5, 10, 999, 1000, 1001, 1250, 1255, 1005, -500, -1250, 123_456_789]
        values += [9_999_999_999_999, -9_999_999_999_999, 10_000_000_000_001, Int64.max, Int64.min]
        for _ in 0..<20_000 { values.append(Int64(bitPattern: rng.next()) >> Int64(rng.below(63))) }
        for us in values {
            var fast = JSONWriter()
            fast.milliseconds(microseconds: us)
            var double = JSONWriter()
            double.number(Double(us) / 1000)
            XCTAssertEqual(String(decoding: fast.bytes, as: UTF8.self), String(decoding: double.bytes, as: UTF8.self))
        }
    }

    func testHostileStringsAreEscaped() {
        var w = JSONWriter()
        w.beginObject()
        w.field("name", "a\"b\\c\n\u{1b}[31m\u{202e}z")
        w.key("list")
        w.beginArray()
        w.int(1)
        w.string("x")
        w.endArray()
        w.endObject()
        XCTAssertEqual(
            String(decoding: w.bytes, as: UTF8.self), #"{"name":"a\"b\\c\n\u001b[31m\u202ez","list":[1,"x"]}"#)
        XCTAssertEqual(TerminalText.safe("ok"), "ok")
        XCTAssertEqual(TerminalText.safe("\u{1b}[2Jname\u{202e}\u{7}"), "\\u{1b}[2Jname\\u{202e}\\u{7}")
        XCTAssertEqual(TerminalText.safe("Café"), "Café")
    }

    /// The eight-bytes-at-a-time test agrees with the byte-by-byte rule for every byte value at
    /// every place of strings of 1 to 20 bytes (the word loop, its tail, and both).
    func testPlainStringTestAgreesWithTheByteRule() {
        for length in 1...20 {
            for place in 0..<length {
                for b in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[place] = UInt8(b)
                    let expected = !(b < 0x20 || b >= 0x7f || b == 0x22 || b == 0x5c)
                    XCTAssertEqual(
                        bytes.withUnsafeBufferPointer(JSONWriter.isPlain), expected,
                        "byte \(b) at \(place) of \(length)")
                }
            }
        }
        XCTAssertTrue([UInt8]().withUnsafeBufferPointer(JSONWriter.isPlain))
    }

    /// Literal keys and strings are copied by two overlapping moves from 2 to 16 bytes, and by
    /// memmove below and above: every length from 1 to 20, each after a comma and without.
    func testLiteralKeysOfEveryCopyLength() {
        let keys: [StaticString] = [
            "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi",
            "abcdefghij", "abcdefghijk", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn",
            "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqr",
            "abcdefghijklmnopqrs", "abcdefghijklmnopqrst",
        ]
        var w = JSONWriter()
        w.beginObject()
        for k in keys {
            w.key(k)
            w.string(literal: k)
        }
        w.endObject()
        let alphabet = Array("abcdefghijklmnopqrst")
        let expected = (1...20).map { n in "\"\(String(alphabet[..<n]))\":\"\(String(alphabet[..<n]))\"" }
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "{" + expected.joined(separator: ",") + "}")
    }

    /// A definition's u8 field of 0xffffffffffffffff was written as 1.8446744073709552e+19 (through
    /// a Double), and `int` of a UInt64 past Int64.max as a negative number: both exact now.
    func testIntegersPastInt64AreWrittenExactly() {
        var w = JSONWriter()
        w.beginArray()
        w.int(UInt64.max)
        w.int(UInt64(Int64.max) + 1)
        w.endArray()
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "[18446744073709551615,9223372036854775808]")
        let decoded = DecodedMessage(
            name: "M", fields: [MessageField("big", .uint(.max)), MessageField("list", .list([.uint(1 << 63)]))])
        let e = Event(
            record: 1, timestamp: Timestamp(microseconds: 0), direction: .received, connection: 0x40, isTop: true,
            body: .frame(
                FrameInfo(frame: frame, transport: .att, attHandle: 0x15, uuid: nil, dissector: "t", decoded: decoded)))
        let line = String(decoding: JSONLRenderer().render(e) ?? [], as: UTF8.self)
        XCTAssertTrue(line.contains(#""fields":{"big":18446744073709551615,"list":[9223372036854775808]}"#), line)
    }

    /// One and two digits take a short path; every other number the digit writer.
    func testIntegersAsSwiftWritesThem() {
        let numbers: [Int64] = [
            Int64.min, -101, -100, -99, -10, -9, -1, 0, 1, 9, 10, 11, 42, 99, 100, 101, 999, 1000, 123_456_789,
            Int64.max,
        ]
        var w = JSONWriter()
        w.beginArray()
        for n in numbers { w.int(n) }
        w.endArray()
        XCTAssertEqual(
            String(decoding: w.bytes, as: UTF8.self), "[" + numbers.map(String.init).joined(separator: ",") + "]")
    }

    /// A closed object or array is a member of the one around it: what follows it takes a comma,
    /// at every depth, empty or not.
    func testNestedContainersSeparateTheirMembers() {
        var w = JSONWriter()
        w.beginArray()
        w.beginArray()
        w.endArray()
        w.beginArray()
        w.int(1)
        w.beginArray()
        w.int(2)
        w.endArray()
        w.endArray()
        w.beginObject()
        w.key("a")
        w.beginObject()
        w.endObject()
        w.key("b")
        w.beginArray()
        w.endArray()
        w.endObject()
        w.int(3)
        w.endArray()
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #"[[],[1,[2]],{"a":{},"b":[]},3]"#)
    }

    func testTextLinesHaveTheTimelineColumns() {
        var r = TextRenderer()
        XCTAssertEqual(
            r.render(a5Event()),
            "#12          0.000000 < 0x0040 A5    0x0013 (fff3) cmd 0x20 seq 7 flags 0x00 len 1: 01\n")
        let note = Event(
            record: 13, timestamp: Timestamp(microseconds: 1_510_394_584_500_001), direction: nil, connection: nil,
            isTop: true, body: .note(category: "System Note", text: "evil\u{1b}]0;title\u{7}"))
        XCTAssertEqual(r.render(note), "#13          0.500000 =      - NOTE  System Note: evil\\u{1b}]0;title\\u{7}\n")
        var colored = TextRenderer(color: true)
        XCTAssertEqual(colored.render(a5Event())?.hasPrefix("\u{1b}[32m#12"), true)
        let detail = Event(
            record: 14, timestamp: Timestamp(microseconds: 0), direction: .sent, connection: 0x40, isTop: false,
            body: .l2cap(L2CAPInfo(cid: 4, length: 7, firstRecord: 14, truncated: false)))
        XCTAssertNil(r.render(detail))
        var verbose = TextRenderer(verbose: true)
        XCTAssertEqual(verbose.render(detail), "#14          0.000000 < 0x0040 L2CAP   L2CAP ATT (0x0004) len 7\n")
    }

    func testCachedTimestampsMatchTheirISOForm() {
        // Also years past 9999 and before 0: a damaged capture's time (a pcapng mutant's saturates
        // at Int64.max µs, year 294247) once lost its seconds' last digit in JSONL.
        for micros: Int64 in [
            0, 999_999, 1_000_000, 1_000_001, 86_399_999_999, -1, -1_000_000, 1_510_394_584_123_456,
            253_402_300_800_000_000, .max - 1, .min / 2_000_000 * 1_000_000,
        ] {
            var w = JSONWriter()
            w.beginArray()
            w.time(Timestamp(microseconds: micros))
            w.time(Timestamp(microseconds: micros + 1))
            w.endArray()
            let expected =
                "[\"\(Timestamp(microseconds: micros).iso8601)\",\"\(Timestamp(microseconds: micros + 1).iso8601)\"]"
            XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), expected)
        }
    }
}
