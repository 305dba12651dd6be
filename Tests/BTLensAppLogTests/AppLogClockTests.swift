import BTLensDissect
import XCTest

@testable import BTLensAppLog

/// The clock aligner: candidates are capture time minus log time for each run of 3 bytes or more
/// that is a value (docs/app-logs.md, "The offset").
final class AppLogClockTests: XCTestCase {
    func testTheDensestSecondGivesItsMedian() {
        XCTAssertTrue(AppLogClock.densest([9_000_000, 5_000_200, 5_000_000, 5_000_100]) == (5_000_100, 3))
        XCTAssertTrue(AppLogClock.densest([]) == (0, 0))
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

    func testALinesTimeOnTheCapturesClock() {
        let a = AppLogAlignment(source: "a.log", offsetMicroseconds: -3_600_000_000, matched: 1, method: .content)
        XCTAssertEqual(AppLogClock.time(of: readLine(1, "x", at: 3_601_000_000), a), 1_000_000)
        XCTAssertEqual(AppLogClock.time(of: readLine(1, "x", at: 7), nil), 7)
        XCTAssertNil(AppLogClock.time(of: readLine(1, "x", at: nil), a))
    }
}
