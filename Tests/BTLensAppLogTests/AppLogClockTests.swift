import BTLensCore
import XCTest

@testable import BTLensAppLog
@testable import BTLensDissect

/// The clock aligner: candidates are capture time minus log time for each run of 3 bytes or more
/// that is a value (docs/app-logs.md, "The offset").
final class AppLogClockTests: XCTestCase {
    func testTheDensestSecondGivesItsMedian() {
        XCTAssertTrue(AppLogClock.densest([9_000_000, 5_000_200, 5_000_000, 5_000_100]) == (5_000_100, 3))
        XCTAssertTrue(AppLogClock.densest([]) == (0, 0))
        // A log that repeats a session agrees as well with each: the offset nearest its own
        // clock (0) or its zone (the capture's clock in local time) is taken, not the first.
        let sessions: [Int64] = [3_600_002_000, 3_600_002_000, 7_200_002_000, 7_200_002_000]
        XCTAssertTrue(AppLogClock.densest(sessions, priors: [0, 7_200_000_000]) == (7_200_002_000, 2))
        XCTAssertTrue(AppLogClock.densest(sessions.reversed(), priors: [0, 7_200_000_000]) == (7_200_002_000, 2))
        XCTAssertTrue(AppLogClock.densest(sessions) == (3_600_002_000, 2))
    }

    func testOffsetFromTheLinesWhoseBytesAreValues() {
        let values: AppLogClock.Values = [[0x01, 0x02, 0x03]: [3_601_000_000], [0x0a, 0x0b, 0x0c]: [3_602_000_004]]
        let lines = [
            readLine(1, "TX write: 01 02 03", at: 1_000_000),
            readLine(2, "RX notify: 0a0b0c", at: 2_000_000),
            // Two bytes say nothing of the clock; a line with no time neither.
            readLine(3, "TX 0a 0b", at: 5_000_000),
            readLine(4, "TX 01 02 03", at: nil),
        ]
        XCTAssertTrue(AppLogClock.offset(of: lines, values) == (3_600_000_004, 2))
    }

    func testAValueCarriedMoreThan16TimesIsLeftOut() {
        let often = (0..<17).map { Int64($0) * 10_000_000 }
        let values: AppLogClock.Values = [[0x01, 0x02, 0x03]: often]
        XCTAssertTrue(AppLogClock.offset(of: [readLine(1, "01 02 03", at: 0)], values) == (0, 0))
    }

    func testTheAlignmentSaysHowItWasFound() {
        let values: AppLogClock.Values = [[0x01, 0x02, 0x03]: [1_500_000]]
        let timed = [readLine(1, "TX 01 02 03", at: 1_000_000)]
        let content = AppLogClock.alignment(source: "a.log", lines: timed, values: values, given: nil)
        XCTAssertEqual(content.fields.map(\.0), ["source", "offset_ms", "matched", "method"])
        XCTAssertEqual([content.offsetMicroseconds, Int64(content.matched)], [500_000, 1])
        XCTAssertEqual(content.method, .content)

        let clock = AppLogClock.alignment(source: "a.log", lines: timed, values: [:], given: nil)
        XCTAssertEqual([clock.offsetMicroseconds, Int64(clock.matched)], [0, 0])
        XCTAssertEqual(clock.method, .clock)

        let given = AppLogClock.alignment(source: "a.log", lines: timed, values: values, given: -3_600_000_000)
        XCTAssertEqual([given.offsetMicroseconds, Int64(given.matched)], [-3_600_000_000, 0])
        XCTAssertEqual(given.method, .given)

        // A log that writes no time: no offset, each line placed by its bytes.
        let untimed = [readLine(1, "TX 01 02 03", at: nil), readLine(2, "TX 04 05 06", at: nil)]
        let content2 = AppLogClock.alignment(source: "b.log", lines: untimed, values: values, given: nil)
        XCTAssertEqual([content2.offsetMicroseconds, Int64(content2.matched)], [0, 1])
        XCTAssertEqual(content2.method, .content)
        XCTAssertTrue(content2.untimed)
    }

    /// The whole-capture survey: each log run joined with the values the capture carried, the
    /// offset their densest second's median; runs seen more than 16 times on a side left out.
    func testTheSurveyJoinsTheWholeLogWithTheWholeCapture() {
        var survey = AppLogSurvey()
        XCTAssertTrue(survey.isEmpty)
        survey.add(readLine(1, "TX 01 02 03", at: 1_000_000))
        survey.add(readLine(2, "RX 0a 0b 0c", at: 2_000_000))
        survey.add(readLine(3, "TX 10 20", at: 3_000_000))  // weak: never places the clock
        for k in 0..<17 { survey.add(readLine(4 + k, "TX aa bb cc", at: Int64(k) * 1_000_000)) }
        XCTAssertFalse(survey.isEmpty)
        survey.add(notification([0x01, 0x02, 0x03], at: 7_201_000_000))
        survey.add(notification([0x0a, 0x0b, 0x0c], at: 7_202_000_010))
        survey.add(notification([0x10, 0x20], at: 7_203_000_000))
        survey.add(notification([0xaa, 0xbb, 0xcc], at: 7_200_000_000))
        XCTAssertTrue(survey.offset() == (7_200_000_010, 2))
    }

    /// Past `keys` distinct runs the survey keeps one in two of those first seen, then one in four:
    /// a sample over the whole log, which still finds the offset.
    func testTheSurveyIsBoundedAndSamplesTheWholeLog() {
        var survey = AppLogSurvey()
        let count = AppLogSurvey.keys * 3
        for k in 0..<count {
            let bytes = [UInt8(k >> 16 & 0xff), UInt8(k >> 8 & 0xff), UInt8(k & 0xff), 0xee]
            survey.add(readLine(k + 1, "TX " + bytes.map { String(format: "%02x", $0) }.joined(), at: Int64(k) * 1000))
        }
        XCTAssertLessThanOrEqual(survey.keptRuns, AppLogSurvey.keys)
        // Values from the start, the middle and the end of the log all still meet their runs.
        for k in [0, count / 2, count - 4] {
            let bytes = [UInt8(k >> 16 & 0xff), UInt8(k >> 8 & 0xff), UInt8(k & 0xff), 0xee]
            survey.add(notification(bytes, at: Int64(k) * 1000 + 5_000_000))
        }
        XCTAssertTrue(survey.offset() == (5_000_000, 3))
    }

    private func notification(_ value: [UInt8], at t: Int64) -> Event {
        Event(
            record: 1, timestamp: Timestamp(microseconds: t), direction: .received, connection: 0x0040, isTop: true,
            body: .att(ATTInfo(opcode: .handleValueNotification, handle: 0x2a, uuid: nil, value: value[...])))
    }

    func testALinesTimeOnTheCapturesClock() {
        let a = AppLogAlignment(source: "a.log", offsetMicroseconds: -3_600_000_000, matched: 1, method: .content)
        XCTAssertEqual(AppLogClock.time(of: readLine(1, "x", at: 3_601_000_000), a), 1_000_000)
        XCTAssertEqual(AppLogClock.time(of: readLine(1, "x", at: 7), nil), 7)
        XCTAssertNil(AppLogClock.time(of: readLine(1, "x", at: nil), a))
    }
}
