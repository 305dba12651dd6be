import XCTest

@testable import BTLensAppLog

final class LogTimeTests: XCTestCase {
    private func time(_ text: String) -> LogTime? { LogTimeParser.parse(whole: Substring(text)) }

    // 2023-11-14 22:13:20 UTC is 1,700,000,000 s after the epoch.
    func testTheSpellingsOfATime() throws {
        let iso = try XCTUnwrap(time("2023-11-14T22:13:20.036Z"))
        XCTAssertEqual(
            iso,
            LogTime(
                year: 2023, month: 11, day: 14, hour: 22, minute: 13, second: 20,
                nanosecond: 36_000_000, fractionDigits: 3, utcOffsetSeconds: 0))
        XCTAssertEqual(iso.microsecondsSinceEpoch(fallbackYear: 1999), 1_700_000_000_036_000)
        // log show and NSLog: microseconds and an attached zone.
        let osLog = try XCTUnwrap(time("2023-11-14 23:13:20.036123+0100"))
        XCTAssertEqual(osLog.utcOffsetSeconds, 3600)
        XCTAssertEqual(osLog.fractionDigits, 6)
        XCTAssertEqual(osLog.microsecondsSinceEpoch(fallbackYear: 0), 1_700_000_000_036_123)
        XCTAssertEqual(
            time("2023-11-14T17:43:20-04:30")?.microsecondsSinceEpoch(fallbackYear: 0), 1_700_000_000_000_000)
        XCTAssertEqual(time("2023-11-15T01:13:20+03")?.utcOffsetSeconds, 10_800)
        // Swift's Date() print: second precision, the zone after a space.
        let swiftDate = try XCTUnwrap(time("2023-11-14 22:13:20 +0000"))
        XCTAssertEqual(swiftDate.fractionDigits, 0)
        XCTAssertEqual(swiftDate.utcOffsetSeconds, 0)
        // Python's logging: a comma before the milliseconds, no zone.
        let python = try XCTUnwrap(time("2023-11-14 22:13:20,500"))
        XCTAssertNil(python.utcOffsetSeconds)
        XCTAssertEqual(
            python.microsecondsSinceEpoch(fallbackYear: 0, assumedUTCOffsetSeconds: -3600), 1_700_003_600_500_000)
        // Nanoseconds, and digits past the ninth read and dropped.
        XCTAssertEqual(time("2023-11-14 22:13:20.123456789123")?.nanosecond, 123_456_789)
        XCTAssertEqual(time("2023-11-14 22:13:20.123456789123")?.fractionDigits, 9)
    }

    func testLogcatWritesNoYear() throws {
        let t = try XCTUnwrap(time("11-14 22:13:20.036"))
        XCTAssertNil(t.year)
        XCTAssertEqual(t.microsecondsSinceEpoch(fallbackYear: 2023), 1_700_000_000_036_000)
        XCTAssertEqual(
            t.microsecondsSinceEpoch(fallbackYear: 2024) - t.microsecondsSinceEpoch(fallbackYear: 2023),
            366 * 86_400 * 1_000_000, "2024 is a leap year, and 14 November comes after its 29 February")
        var s = ByteScanner(Array("11-14 22:13:20.036".utf8))
        XCTAssertNil(LogTimeParser.parse(&s, yearless: false), "a logger's line needs its year")
        XCTAssertEqual(s.at, 0, "a failed parse moves nothing")
    }

    /// 2023-01-01T00:00:00Z and 2024-01-01T00:00:00Z in µs.
    static let newYear2023: Int64 = 1_672_531_200_000_000
    static let newYear2024: Int64 = 1_704_067_200_000_000

    func testAYearlessTimeTakesTheYearNearestTheReference() throws {
        let december = try XCTUnwrap(time("12-31 23:59:59.500"))
        let january = try XCTUnwrap(time("01-01 00:00:00.250"))
        // A capture that starts on 1 January 2024 beside a log from the evening before.
        XCTAssertEqual(
            december.microsecondsSinceEpoch(nearest: Self.newYear2024 + 60_000_000), Self.newYear2024 - 500_000)
        // A log from 31 December going on past midnight, its reference its last line.
        XCTAssertEqual(january.microsecondsSinceEpoch(nearest: Self.newYear2024 - 500_000), Self.newYear2024 + 250_000)
        // Within the year: the reference's own year.
        let june = Self.newYear2023 + 180 * 86_400_000_000
        let november = try XCTUnwrap(time("11-14 22:13:20.036"))
        XCTAssertEqual(november.microsecondsSinceEpoch(nearest: june), 1_700_000_000_036_000)
        XCTAssertEqual(january.microsecondsSinceEpoch(nearest: june), Self.newYear2023 + 250_000)
        // A written year is kept, whatever the reference.
        let written = try XCTUnwrap(time("2020-12-31 23:59:59"))
        XCTAssertEqual(written.microsecondsSinceEpoch(nearest: june), written.microsecondsSinceEpoch(fallbackYear: 0))
        // Before 1970 and at Int64's ends: no trap.
        XCTAssertEqual(LogTime.year(of: -1), 1969)
        XCTAssertEqual(LogTime.year(of: 0), 1970)
        XCTAssertEqual(LogTime.year(of: Self.newYear2024 - 1), 2023)
        XCTAssertEqual(LogTime.year(of: Self.newYear2024), 2024)
        _ = january.microsecondsSinceEpoch(nearest: .max)
        _ = january.microsecondsSinceEpoch(nearest: .min)
    }

    func testWhatIsNotATime() {
        for text in [
            "2023-13-14 22:13:20", "2023-11-32 22:13:20", "2023-11-14 24:13:20", "2023-11-14 22:60:20",
            "2023-11-14 22:13:61", "2023-11-14 22:13", "2023-11-14T22:13:20+2400", "2023-11-14 22:13:20.",
            "1-14 22:13:20",
            "2023-11-14 22:13:200", "2023-11-14  22:13:20", "", "2023-11-14T22:13:20 +01",
        ] {
            XCTAssertNil(time(text), text)
        }
    }

    func testHostileFieldsSaturateInsteadOfTrapping() {
        let huge = LogTime(
            year: .max, month: .max, day: .max, hour: .max, minute: .max, second: .max, nanosecond: .max,
            fractionDigits: .max, utcOffsetSeconds: .min)
        XCTAssertEqual(huge.microsecondsSinceEpoch(fallbackYear: 0), .max)
        let tiny = LogTime(
            year: .min, month: .min, day: .min, hour: .min, minute: .min, second: .min, nanosecond: .min,
            utcOffsetSeconds: .max)
        XCTAssertEqual(tiny.microsecondsSinceEpoch(fallbackYear: 0), .min)
        XCTAssertEqual(
            LogTime(year: nil, month: 1, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(
                fallbackYear: .max, assumedUTCOffsetSeconds: 0), .max)
        // An offset of Int.max seconds outweighs a billion years: the sum saturates the other way.
        XCTAssertEqual(
            LogTime(year: nil, month: 1, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(
                fallbackYear: .max, assumedUTCOffsetSeconds: .max), .min)
        // A month past 12 rolls into the next year, as mktime does: month 14 of 2022 is February 2023.
        XCTAssertEqual(
            LogTime(year: 2022, month: 14, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(
                fallbackYear: 0),
            LogTime(year: 2023, month: 2, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(fallbackYear: 0)
        )
        XCTAssertEqual(
            LogTime(year: 2023, month: 0, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(
                fallbackYear: 0),
            LogTime(year: 2022, month: 12, day: 1, hour: 0, minute: 0, second: 0).microsecondsSinceEpoch(
                fallbackYear: 0))
    }

    func testAStrftimeLayout() throws {
        let european = try LogTimeFormat("%d/%m/%Y %H:%M:%S.%f")
        XCTAssertEqual(
            european.parse("14/11/2023 22:13:20.036")?.microsecondsSinceEpoch(fallbackYear: 0), 1_700_000_000_036_000)
        let syslog = try LogTimeFormat("%b %d %T")
        let t = try XCTUnwrap(syslog.parse("Nov  4 09:05:07"))
        XCTAssertEqual([t.month, t.day, t.hour, t.minute, t.second], [11, 4, 9, 5, 7])
        XCTAssertNil(t.year)
        XCTAssertEqual(try LogTimeFormat("%y%m%d %H%M%S%z").parse("231114 231320+0100")?.utcOffsetSeconds, 3600)
        XCTAssertNil(syslog.parse("Nov  4 09:05:07 extra"), "the whole group must match")
        XCTAssertNil(syslog.parse("Noo  4 09:05:07"))
        XCTAssertNil(european.parse("14/13/2023 22:13:20.036"))
        XCTAssertThrowsError(try LogTimeFormat("%H:%M:%Q")) { XCTAssertTrue("\($0)".contains("%Q is not a directive")) }
        XCTAssertThrowsError(try LogTimeFormat("%Y-%m-%d")) { XCTAssertTrue("\($0)".contains("no hour")) }
        XCTAssertThrowsError(try LogTimeFormat("%H%"))
    }
}
