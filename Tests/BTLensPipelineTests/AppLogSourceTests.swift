import BTLensAppLog
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensPipeline

final class AppLogSourceTests: XCTestCase {
    private func file(_ bytes: [UInt8], _ suffix: String = ".log") throws -> String {
        let path = NSTemporaryDirectory() + "btlens-applog-\(UUID().uuidString)\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func append(_ text: String, to path: String) throws {
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: Data(text.utf8))
        try h.close()
    }

    /// Every line `next()` gives until nil.
    private func drain(_ source: AppLogSource) throws -> [AppLogReadLine] {
        var lines = [AppLogReadLine]()
        while let l = try source.next() { lines.append(l) }
        return lines
    }

    /// A bugreport's text: a section before, the logcat, and a section after that is no logcat.
    static func bugreport(logcat: [String]) -> String {
        ([
            "== dumpstate: 2023-11-14 22:14:00", "------ UPTIME (uptime) ------", "up 2 days",
            "------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------",
            "--------- beginning of main",
        ] + logcat
            + [
                "------ 0.120s was the duration of 'SYSTEM LOG' ------",
                "------ EVENT LOG (logcat -b events -v threadtime -v printable -v uid -d *:v) ------",
                "11-14 22:13:21.000  1000  1500  1500 I am_proc_start: [0,1234]", "",
            ])
            .joined(separator: "\n")
    }

    static let logcat = [
        "11-14 22:13:20.036 10123  1234  1250 D BLE     : TX command: a5 01 20",
        "11-14 22:13:20.090  u0_a12  1234  1251 W BLE     : RX: a5 81 00",
    ]

    /// 2023-11-14 22:13:20.036 UTC in µs.
    static let firstTime: Int64 = 1_700_000_000_036_000

    func testTheLogcatOfABugreportZipIsStreamedFromItsMainText() throws {
        // Enough lines that the member inflates in several pieces.
        let filler = (0..<5000).map {
            String(format: "11-14 22:13:21.%03d  1000  1500  1500 I other: line %d", $0 % 1000, $0)
        }
        let text = Self.bugreport(logcat: Self.logcat + filler)
        let zip = try file(
            BugreportZip.make([
                ("version.txt", Array("2.0".utf8), false),
                ("bugreport-phone-2023-11-14-22-14-00.txt", Array(text.utf8), true),
                ("main_entry.txt", Array("bugreport-phone-2023-11-14-22-14-00.txt".utf8), false),
            ]), ".zip")
        let source = try AppLogSource.open(zip, format: nil, keep: { $0.tag == "BLE" }, growing: false)
        XCTAssertEqual(source.name, "\(zip) member bugreport-phone-2023-11-14-22-14-00.txt")
        source.reference = Self.firstTime
        let lines = try drain(source)
        XCTAssertEqual(lines.count, 5002, "the EVENT LOG section is not read")
        XCTAssertEqual(lines.prefix(2).map(\.line.number), [6, 7], "numbered in the member's text")
        XCTAssertEqual(lines.prefix(2).map(\.rawTime), [Self.firstTime, Self.firstTime + 54_000])
        XCTAssertEqual(lines.prefix(2).map(\.runs.first?.bytes), [[0xa5, 0x01, 0x20], [0xa5, 0x81, 0x00]])
        XCTAssertEqual(lines.map(\.kept).filter { $0 }.count, 2)
        XCTAssertTrue(source.isEnded)
    }

    func testABugreportsTextIsReadToo() throws {
        let path = try file(Array(Self.bugreport(logcat: Self.logcat).utf8), ".txt")
        let source = try AppLogSource.open(path, format: nil, keep: { _ in true }, growing: false)
        XCTAssertEqual(source.name, path)
        XCTAssertEqual(try drain(source).map(\.line.number), [6, 7])
    }

    func testABugreportWithNoLogcatIsAClearError() throws {
        let text = "== dumpstate\n------ UPTIME (uptime) ------\nup 2 days\n"
        let zip = try file(BugreportZip.make([("bugreport-x.txt", Array(text.utf8), true)]), ".zip")
        let source = try AppLogSource.open(zip, format: nil, keep: { _ in true }, growing: false)
        XCTAssertThrowsError(try drain(source)) {
            XCTAssertTrue("\($0)".contains("member bugreport-x.txt: no logcat in this bugreport"), "\($0)")
        }
        let noText = try file(BugreportZip.make([("FS/other.txt", [1], true)]), ".zip")
        XCTAssertThrowsError(try AppLogSource.open(noText, format: nil, keep: { _ in true }, growing: false)) {
            XCTAssertTrue("\($0)".contains("no bugreport text"), "\($0)")
        }
    }

    func testALogcatCrossingNewYearGoesOnIntoTheNextYear() throws {
        let log = """
            12-31 23:59:59.500  1234  1250 D BLE: before midnight
            01-01 00:00:00.250  1234  1250 D BLE: after midnight
            01-01 00:00:01.000  1234  1250 D BLE: later

            """
        let newYear2024: Int64 = 1_704_067_200_000_000
        let source = try AppLogSource(path: file(Array(log.utf8)), format: nil, keep: { _ in true })
        // A capture of the evening of 31 December 2023.
        source.reference = newYear2024 - 3_600_000_000
        XCTAssertEqual(
            try drain(source).map(\.rawTime), [newYear2024 - 500_000, newYear2024 + 250_000, newYear2024 + 1_000_000])
        XCTAssertEqual(source.reference, newYear2024 + 1_000_000, "moved to the last timed line")
        // A capture that starts on 1 January 2024 beside the log of 31 December.
        let late = try AppLogSource(path: file(Array(log.utf8)), format: nil, keep: { _ in true })
        late.reference = newYear2024 + 10_000_000
        XCTAssertEqual(try late.next()?.rawTime, newYear2024 - 500_000)
    }

    func testLogcatBriefLinesHaveNoTime() throws {
        let log = "D/BLE     ( 1234): TX a5 01 20\nI/BLE     ( 1234): ok\nW/BLE     ( 1234): RX a5 81 00\n"
        let source = try AppLogSource(path: file(Array(log.utf8)), format: nil, keep: { _ in true })
        let before = source.reference
        let lines = try drain(source)
        XCTAssertEqual(lines.map(\.rawTime), [nil, nil, nil])
        XCTAssertEqual(lines.map(\.line.number), [1, 2, 3])
        XCTAssertEqual(source.reference, before, "an untimed line moves nothing")
    }

    func testAGrowingLogIsReadAsItGrows() throws {
        let path = try file(Array("11-14 22:13:20.036  1234  1250 D BLE: one\n11-14 22:13:2".utf8))
        let source = try AppLogSource(path: path, format: .logcatThreadtime, keep: { _ in true }, growing: true)
        source.reference = Self.firstTime
        XCTAssertNil(try source.next(), "line 1 waits for lines that may continue it; line 2 is not ended")
        XCTAssertFalse(source.isEnded)
        // Line 2 ends, split mid-way across the two appends; a continuation line joins it.
        try append("1.000  1234  1250 D BLE: two\n    more of two\n", to: path)
        XCTAssertEqual(try source.next()?.line.message, "one")
        XCTAssertNil(try source.next())
        source.flushPending()
        let two = try XCTUnwrap(try source.next(), "the log went quiet: the held entry comes out")
        XCTAssertEqual([two.line.number, two.line.message.count], [2, "two\n    more of two".count])
        XCTAssertEqual(two.rawTime, Self.firstTime + 964_000)
        XCTAssertNil(try source.next())
        try append("11-14 22:13:22.000  1234  1250 D BLE: three\n", to: path)
        XCTAssertNil(try source.next())
        XCTAssertFalse(source.isEnded)
        source.finish()
        XCTAssertEqual(try source.next()?.line.number, 4)
        XCTAssertNil(try source.next())
        XCTAssertTrue(source.isEnded)
    }

    func testAGrowingLogTruncatedOrReplacedStartsAgain() throws {
        let first = "11-14 22:13:20.036  1234  1250 D BLE: one\n11-14 22:13:20.037  1234  1250 D BLE: two\n"
        let path = try file(Array(first.utf8))
        let source = try AppLogSource(path: path, format: nil, keep: { _ in true }, growing: true)
        XCTAssertEqual(try drain(source).map(\.line.message), [], "held to detect the format")
        source.flushPending()
        XCTAssertEqual(try drain(source).map(\.line.message), ["one", "two"])
        // Truncated (a log rotated in place): shorter than what was read.
        try Data("11-14 22:13:21.000  1234  1250 D BLE: new\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try drain(source).map(\.line.number), [], "the format is kept: held for continuation lines")
        source.flushPending()
        XCTAssertEqual(try drain(source).map(\.line.number), [1], "read from its beginning")
        // Replaced by another file, longer than what was read.
        let other = try file(Array(String(repeating: "11-14 22:13:22.000  1234  1250 D BLE: again\n", count: 3).utf8))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: other, toPath: path)
        source.flushPending()
        source.finish()
        XCTAssertEqual(try drain(source).map(\.line.number), [1, 2, 3])
    }

    func testALogThatIsNotGrowingEndsAtItsEnd() throws {
        let path = try file(Array("11-14 22:13:20.036  1234  1250 D BLE: one".utf8))
        let source = try AppLogSource(path: path, format: nil, keep: { _ in true })
        XCTAssertEqual(try source.next()?.line.message, "one", "the last line needs no line end")
        XCTAssertNil(try source.next())
        XCTAssertTrue(source.isEnded)
    }
}
