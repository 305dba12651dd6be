import BTLensCore
import XCTest

@testable import BTLensDissect
@testable import BTLensFilter

/// The language: every operator, precedence, values, and the errors with their caret positions.
final class FilterLanguageTests: XCTestCase {
    private static let kind = DiagnosticKind("a5.checksum.bad", .error, "")

    /// An A5 frame: command 0x20, sequence 7, payload 01 a5 02, on connection 0x40, record 29.
    private func frame(command: UInt16 = 0x20, record: Int = 29, micros: Int64 = 2_500_000) -> Event {
        let f = Frame(
            version: 1, command: command, sequence: 7, flags: 0, payload: [0x01, 0xa5, 0x02], checksum: 0xcf,
            expectedChecksum: 0xcf)
        let info = FrameInfo(
            frame: f, transport: .att, attHandle: 0x13, uuid: .bit16(0xfff3), dissector: "aurora-headphones",
            decoded: DecodedMessage(
                name: "SetEQPreset", kind: .request,
                fields: [
                    MessageField("preset", .enumerated("bassBoost", raw: 1)),
                    MessageField("level", .measure(85, unit: "%")),
                    MessageField("stamp", .uintUnit(763_989_256_864_534_528, unit: "ns")),
                ], flagNames: ["ack"]))
        return Event(
            record: record, timestamp: Timestamp(microseconds: micros), direction: .sent, connection: 0x40,
            isTop: true, body: .frame(info))
    }

    private func diagnostic(_ severity: Severity = .error) -> Event {
        var d = Diagnostic(Self.kind, "command 0x20: checksum 0xcc, expected 0xcb", fields: [("command", .int(0x20))])
        d.severity = severity
        return Event(
            record: 5, timestamp: Timestamp(microseconds: 1_000_000), direction: nil, connection: 0x41, isTop: true,
            body: .diagnostic(d))
    }

    private func note() -> Event {
        Event(
            record: 1, timestamp: Timestamp(microseconds: 0), direction: nil, connection: nil, isTop: true,
            body: .note(category: "Note", text: "hello"))
    }

    /// Whether `expression` selects each of `events`, judged as one run (reltime from the first).
    private func select(_ expression: String, _ events: [Event]) throws -> [Bool] {
        let f = try DisplayFilter(expression)
        return events.map(f.matches)
    }

    private func check(_ expression: String, _ expected: [Bool], file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        XCTAssertEqual(
            try select(expression, [note(), frame(), diagnostic()]), expected, expression, file: file, line: line)
    }

    func testTypesAndFamilies() throws {
        try check("a5", [false, true, false])
        try check("diagnostic", [false, false, true])
        try check("note || a5", [true, true, false])
        try check("message", [false, false, false])
        XCTAssertEqual(try select("hci", [note()]), [false])
        let command = Event(
            record: 1, timestamp: Timestamp(microseconds: 0), direction: .sent, connection: nil, isTop: true,
            body: .hciCommand(HCICommandInfo(opcode: HCIOpcode(rawValue: 0x0c03), parameterLength: 0, fields: [])))
        XCTAssertEqual(try select("hci", [command]), [true])
        XCTAssertEqual(try select("hci.command", [command]), [true])
        XCTAssertEqual(try select("hci.event", [command]), [false])
        XCTAssertEqual(try select("type == \"hci.command\"", [command]), [true])
    }

    func testComparisons() throws {
        try check("command == 0x20", [false, true, true])
        try check("command == 32", [false, true, true])
        try check("command != 0x20", [false, false, false])
        try check("command != 0x21", [false, true, true])
        try check("command < 0x21", [false, true, true])
        try check("command <= 0x1f", [false, false, false])
        try check("command > 0x1f", [false, true, true])
        try check("command >= 0x21", [false, false, false])
        try check("command eq 0x20 and sequence ne 8", [false, true, false])
        try check("record lt 6", [true, false, true])
        try check("latency_ms > 0", [false, false, false])
        try check("checksum_ok == true", [false, true, false])
        try check("checksum_ok == false", [false, false, false])
        try check("connection == 0x40", [false, true, false])
    }

    func testStringsBytesAndSets() throws {
        try check("payload contains a5:02", [false, true, false])
        try check("payload contains a502", [false, true, false])
        try check("payload contains \"01a5\"", [false, true, false])
        try check("payload contains 02:01", [false, false, false])
        try check("payload == 01:a5:02", [false, true, false])
        try check("message contains \"checksum\"", [false, false, true])
        try check("text contains ell", [true, false, false])
        try check("id matches \"^a5\\\\.checksum\"", [false, false, true])
        try check("payload matches \"a5.2$\"", [false, true, false])
        try check("command in {0x10 0x20}", [false, true, true])
        try check("command in {0x10, 0x30..0x40}", [false, false, false])
        try check("record in 5..29", [false, true, true])
        try check("uuid == fff3", [false, true, false])
        // The JSONL writes fff3; a user may write it as Wireshark does.
        try check("uuid == FFF3", [false, true, false])
        try check("uuid == 0xfff3", [false, true, false])
        try check("uuid in {0xFFF4, 0xFFF3}", [false, true, false])
        try check("dissector == aurora-headphones", [false, true, false])
        try check("command_name == SetEQPreset && kind == request", [false, true, false])
    }

    func testDecodedFieldsAndArrays() throws {
        try check("fields.preset == bassBoost", [false, true, false])
        try check("fields.preset", [false, true, false])
        try check("fields.level.value >= 80 && fields.level.unit == \"%\"", [false, true, false])
        // A value with a unit compares by its value, as Wireshark compares a field with units.
        try check("fields.level == 85", [false, true, false])
        try check("fields.level > 90", [false, false, false])
        // An integer with a unit compares exactly, past 2^53.
        try check("fields.stamp.value == 763989256864534528", [false, true, false])
        try check("fields.stamp.value == 763989256864534529", [false, false, false])
        try check("flags_names == ack", [false, true, false])
        try check("flags_names != ack", [false, false, false])
        try check("flags_names != nack", [false, true, false])
        XCTAssertTrue(try DisplayFilter("fields.preset == x").readsDecodedFields)
        XCTAssertFalse(try DisplayFilter("command == 0x20").readsDecodedFields)
    }

    func testSeverityDirectionAndTime() throws {
        XCTAssertEqual(
            try select("severity >= warning", [diagnostic(.note), diagnostic(.warning), diagnostic(.error)]),
            [false, true, true])
        XCTAssertEqual(try select("severity < error", [diagnostic(.note), diagnostic(.error)]), [true, false])
        try check("direction == sent", [false, true, false])
        try check("direction != received", [false, true, false])
        try check("time >= 1970-01-01T00:00:01Z", [false, true, true])
        try check("time == \"1970-01-01T00:00:02.5Z\"", [false, true, false])
        // reltime counts from the traffic's first event, not from a note before it (an iPhone's
        // header), unless the origin was said first (the timeline holds such notes until the traffic).
        try check("reltime < 0", [false, false, true])
        let told = try DisplayFilter("reltime > 2 && reltime < 3")
        told.begin(at: Timestamp(microseconds: 0))
        XCTAssertEqual([note(), frame(), diagnostic()].map(told.matches), [false, true, false])
    }

    /// Input a filter must refuse or survive, never trap on: a number with two signs (negating
    /// Int64.min), nesting past the limit (the stack), timestamps at Int64's ends (reltime).
    func testHostileFiltersAndTimesDoNotTrap() throws {
        for e in ["record == --9223372036854775808", "record == -0x-8000000000000000"] {
            XCTAssertThrowsError(try DisplayFilter(e), e)
        }
        let limit = 256
        XCTAssertNoThrow(try DisplayFilter(String(repeating: "!", count: limit) + "a5"))
        XCTAssertThrowsError(try DisplayFilter(String(repeating: "!", count: 2_000) + "a5"))
        XCTAssertThrowsError(try DisplayFilter(String(repeating: "(", count: 2_000) + "a5"))
        XCTAssertNoThrow(try DisplayFilter(Array(repeating: "a5", count: limit + 1).joined(separator: " && ")))
        XCTAssertThrowsError(try DisplayFilter(Array(repeating: "a5", count: 2_000).joined(separator: " || ")))
        let ends = [Int64.min, Int64.max].map {
            Event(
                record: 1, timestamp: Timestamp(microseconds: $0), direction: nil, connection: nil, isTop: true,
                body: .note(category: "Note", text: "x"))
        }
        XCTAssertEqual(try select("reltime > 1", ends), [false, false])
        XCTAssertEqual(try select("bytes_cut > 0", ends), [false, false])
    }

    func testMissingFieldsAreFalseEvenWithNotEqual() throws {
        try check("sequence != 1", [false, true, false])
        try check("!(sequence == 1)", [true, true, true])
        try check("response_to", [false, false, false])
    }

    func testPrecedence() throws {
        // and before or: note || (a5 && diagnostic)
        try check("note || a5 && diagnostic", [true, false, false])
        try check("(note || a5) && command == 0x20", [false, true, false])
        // not before and
        try check("!a5 && !note", [false, false, true])
        try check("not a5 or note", [true, false, true])
        try check("!(a5 || note)", [false, false, true])
        try check("a5 || note || diagnostic && severity == note", [true, true, false])
    }

    func testPossibleTypes() throws {
        XCTAssertEqual(try DisplayFilter("a5 && command == 0x20").possibleTypes, [.a5])
        XCTAssertEqual(
            try DisplayFilter("hci || diagnostic").possibleTypes, [.hciCommand, .hciEvent, .diagnostic, .hciDebug])
        XCTAssertEqual(try DisplayFilter("severity >= warning || id == x").possibleTypes, [.diagnostic])
        XCTAssertEqual(try DisplayFilter("response_to || payload contains 01").possibleTypes, [.a5, .message])
        XCTAssertEqual(try DisplayFilter("command == 0x20").possibleTypes?.contains(.att), false)
        XCTAssertNil(try DisplayFilter("handle == 0x40").possibleTypes)
        XCTAssertNil(try DisplayFilter("!a5").possibleTypes)
    }

    /// Each error: its message and the column (0-based) and length of its caret.
    func testErrorsSayWhereWithACaret() {
        let cases: [(String, String, Int, Int)] = [
            ("comand == 0x20", "unknown field \"comand\" (did you mean \"command\"?)", 0, 6),
            ("a5 && sequnce == 1", "unknown field \"sequnce\" (did you mean \"sequence\"?)", 6, 7),
            ("frobnicate", "unknown field \"frobnicate\"", 0, 10),
            ("a5 &&", "the filter ends where a test was expected", 5, 1),
            ("(a5 || att", "expected ')' to close the '(' at column 1", 10, 1),
            ("a5)", "')' without its '('", 2, 1),
            ("a5 att", "expected '&&', '||' or the end of the filter", 3, 3),
            ("command = 1", "'=' is not an operator: write '==' to compare", 8, 1),
            ("a5 & att", "'&' alone is not an operator: write '&&'", 3, 1),
            ("sequence == bassBoost", "sequence is a number; \"bassBoost\" is not one (write 32, 0x20 or 1.5)", 12, 9),
            ("severity >= fatal", "severity is note, warning or error, not \"fatal\"", 12, 5),
            ("direction == up", "direction is sent or received, not \"up\"", 13, 2),
            ("a5 == 1", "\"a5\" is an event type, not a field: test it alone (a5 && …)", 0, 2),
            ("message contains \"x", "string not closed: a \" is missing", 17, 2),
            ("sequence contains 20", "'contains' looks into strings and bytes; sequence is not one", 0, 8),
            ("command in {}", "the set is empty", 11, 1),
            ("uuid == zz", "uuid is hex digits (fff3, or 128 bits with dashes), not \"zz\"", 8, 2),
            ("payload contains zz", "payload is bytes: write them in hex (a5:01:20 or a50120), not \"zz\"", 17, 2),
            ("checksum_ok == yes", "checksum_ok is true or false, not \"yes\"", 15, 3),
            ("record in 10..5", "the range 10..5 is empty: write the lower end first", 10, 2),
            ("", "the filter is empty", 0, 1),
            ("a5 && # ", "unexpected character '#'", 6, 1),
            ("command ==", "the filter ends where a value was expected", 10, 1),
        ]
        assertRefused(cases)
    }

    func testTheMessageShowsTheCaretUnderThePlace() {
        let e = FilterError(
            "unknown field \"comand\" (did you mean \"command\"?)", in: "a5 && comand == 1", at: 6, length: 6)
        XCTAssertEqual(
            e.description,
            """
            invalid filter: unknown field "comand" (did you mean "command"?)
              a5 && comand == 1
                    ^~~~~~
            """)
    }

    func testTimeLiterals() {
        XCTAssertEqual(Operand.time("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(Operand.time("2023-11-14T22:13:20.036250Z"), 1_700_000_000_036_250)
        XCTAssertEqual(Operand.time("2023-11-14T22:13:20.5"), 1_700_000_000_500_000)
        XCTAssertEqual(Operand.time("2023-11-14"), 1_699_920_000_000_000)
        XCTAssertNil(Operand.time("2023-13-14"))
        XCTAssertNil(Operand.time("2023-02-29"))
        XCTAssertNil(Operand.time("2023-04-31"))
        XCTAssertEqual(Operand.time("2024-02-29"), Operand.time("2024-03-01").map { $0 - 86_400_000_000 })
        // The same instant with an offset from UTC.
        XCTAssertEqual(Operand.time("2023-11-14T23:13:20.5+01:00"), 1_700_000_000_500_000)
        XCTAssertEqual(Operand.time("2023-11-14T20:43:20.5-0130"), 1_700_000_000_500_000)
        XCTAssertEqual(Operand.time("2023-11-15T00:13:20.5+02"), 1_700_000_000_500_000)
        XCTAssertNil(Operand.time("2023-11-14T22:13:20+1:00"))
        XCTAssertNil(Operand.time("2023-11-14T22:13:20+25:00"))
        XCTAssertNil(Operand.time("yesterday"))
    }
}

/// Whatever a user types, the compiler answers (a filter or an error), never traps.
final class FilterInputTests: XCTestCase {
    func testArbitraryTextCompilesOrFails() {
        let alphabet = Array("ab01x.:-_ \"'\\(){},.<>=!&|~#éa5commandseverityin..containsmatches")
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        for _ in 0..<5000 {
            var s = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1
            for _ in 0..<Int(state >> 60) + 1 {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                s.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            do {
                _ = try DisplayFilter(s)
            } catch {
                XCTAssertLessThanOrEqual(error.column, s.count, s)
                XCTAssertFalse(error.description.isEmpty)
            }
        }
    }
}

extension XCTestCase {
    /// Each expression fails to compile with its message, the caret at its column, `length` long.
    func assertRefused(
        _ cases: [(String, String, Int, Int)], file: StaticString = #filePath, line: UInt = #line
    ) {
        for (expression, message, column, length) in cases {
            XCTAssertThrowsError(try DisplayFilter(expression), expression, file: file, line: line) { error in
                guard let e = error as? FilterError else { return XCTFail("\(error)", file: file, line: line) }
                XCTAssertEqual(e.message, message, expression, file: file, line: line)
                XCTAssertEqual(e.column, column, expression, file: file, line: line)
                XCTAssertEqual(e.length, length, expression, file: file, line: line)
            }
        }
    }
}
