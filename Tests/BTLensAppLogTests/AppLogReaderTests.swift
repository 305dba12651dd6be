import BTLensCore
import XCTest

@testable import BTLensAppLog

final class AppLogReaderTests: XCTestCase {
    /// Everything the reader gives for `text` fed in chunks of `chunk` bytes.
    private func read(
        _ text: String, chunk: Int = .max, format: AppLogFormat? = nil, limits: AppLogLimits = AppLogLimits(),
        bugreport: Bool = false
    ) throws -> [AppLogItem] {
        try read(Array(text.utf8), chunk: chunk, format: format, limits: limits, bugreport: bugreport)
    }

    private func read(
        _ bytes: [UInt8], chunk: Int = .max, format: AppLogFormat? = nil, limits: AppLogLimits = AppLogLimits(),
        bugreport: Bool = false
    ) throws -> [AppLogItem] {
        var reader = AppLogReader(format: format, limits: limits, bugreport: bugreport)
        var items = [AppLogItem]()
        var at = 0
        while at < bytes.count {
            let end = min(bytes.count, at + min(chunk, bytes.count))
            reader.append(bytes[at..<end])
            at = end
            while let item = try reader.next() { items.append(item) }
        }
        reader.finish()
        while let item = try reader.next() { items.append(item) }
        XCTAssertNil(try reader.next(), "the end stays the end")
        return items
    }

    private func lines(_ items: [AppLogItem]) -> [AppLogLine] {
        items.compactMap { if case .line(let l) = $0 { return l } else { return nil } }
    }

    private func problems(_ items: [AppLogItem]) -> [AppLogProblem] {
        items.compactMap { if case .problem(let p) = $0 { return p } else { return nil } }
    }

    static let xcodeLog = """
        2023-11-14 22:13:20.036123+0100 App[123:45678] [BLE] TX a5 01 20
        2023-11-14 22:13:20.100000+0100 App[123:45678] services: (
            "<CBService: 0x280c0c000, isPrimary = YES, UUID = FFF0>",

            "<CBService: 0x280c0c100, isPrimary = YES, UUID = 180A>"
        )


        2023-11-14 22:13:21.000000+0100 App[123:45679] RX <a5810000>

        """

    func testContinuationLinesJoinTheEntryBeforeThem() throws {
        var reader = AppLogReader()
        reader.append(Array(Self.xcodeLog.utf8))
        reader.finish()
        var items = [AppLogItem]()
        while let item = try reader.next() { items.append(item) }
        let got = lines(items)
        XCTAssertEqual(reader.format, .xcode)
        XCTAssertEqual(got.map(\.number), [1, 2, 9])
        XCTAssertEqual(
            got[1].message,
            """
            services: (
                "<CBService: 0x280c0c000, isPrimary = YES, UUID = FFF0>",

                "<CBService: 0x280c0c100, isPrimary = YES, UUID = 180A>"
            )
            """, "a blank line inside the entry is kept; the ones after it are not")
        XCTAssertTrue(got[1].text.hasPrefix("2023-11-14 22:13:20.100000+0100 App[123:45678] services: (\n    \"<CB"))
        XCTAssertEqual(got[2].text, "2023-11-14 22:13:21.000000+0100 App[123:45679] RX <a5810000>")
        XCTAssertEqual(reader.skippedLines, 2, "the two blank lines after the entry")
        XCTAssertEqual(problems(items), [])
    }

    func testYearlessLogcatWithItsMarkers() throws {
        let log = AppLogFormatTests.threadtime.joined(separator: "\n") + "\n--------- beginning of system\nstray\n"
        var reader = AppLogReader()
        reader.append(Array(log.utf8))
        reader.finish()
        var got = [AppLogLine]()
        while let item = try reader.next() { if case .line(let l) = item { got.append(l) } }
        XCTAssertEqual(reader.format, .logcatThreadtime)
        XCTAssertEqual(got.map(\.number), [2, 3, 4])
        XCTAssertEqual(got.map { $0.time.map { $0.year == nil } }, [true, true, true])
        XCTAssertEqual(got[2].message, "RX: a5 81 00", "a line after a marker continues nothing")
        XCTAssertEqual(reader.skippedLines, 3)
    }

    func testLogShowChromeIsSkipped() throws {
        let log =
            (AppLogFormatTests.osLogDefault + [
                "--------------------------------------------------------------------------------------------------------------------",
                "Log      - Default:          2, Info:                1, Debug:             0, Error:          1, Fault:          0",
                "Activity - Create:           0, Transition:          0, Actions:           0",
            ]).joined(separator: "\n")
        let got = lines(try read(log))
        XCTAssertEqual(got.map(\.number), [3, 4, 5])
        XCTAssertEqual(got[2].message, "connection up")
    }

    func testNDJSONLinesStandAlone() throws {
        let log = [
            AppLogFormatTests.osLogNDJSON[0], "not json", AppLogFormatTests.osLogNDJSON[1],
            AppLogFormatTests.osLogNDJSON[2],
        ]
        .joined(separator: "\n")
        let items = try read(log)
        XCTAssertEqual(lines(items).map(\.number), [1, 3])
        XCTAssertEqual(problems(items).map(\.line), [2])
        XCTAssertEqual(problems(items).first?.diagnostic.id, "applog.line.unparsed")
        XCTAssertEqual(lines(items)[1].message, "connection up", "not joined to anything")
    }

    func testCRLFAndNoFinalLineEnd() throws {
        let log = "2023-11-14 22:13:20 [BLE] TX a5 01\r\n  more\r\n2023-11-14 22:13:21 [BLE] RX a5 81"
        let got = lines(try read(log))
        XCTAssertEqual(got.map(\.message), ["TX a5 01\n  more", "RX a5 81"])
        XCTAssertFalse(got.contains { $0.text.contains("\r") })
    }

    /// A UTF-8 byte order mark before the first line (an editor's) is not part of it, however the
    /// bytes are cut; one later in the file is text.
    func testAByteOrderMarkBeforeTheFirstLine() throws {
        let log =
            [0xef, 0xbb, 0xbf] + Array("2023-11-14 22:13:20 [BLE] TX a5 01\n2023-11-14 22:13:21 [BLE] RX a5 81\n".utf8)
        for chunk in [1, 2, 3, 4, .max] {
            let got = lines(try read(log, chunk: chunk))
            XCTAssertEqual(got.map(\.message), ["TX a5 01", "RX a5 81"], "chunks of \(chunk)")
            XCTAssertEqual(got.first?.tag, "BLE")
        }
    }

    func testEveryChunkingGivesTheSameItems() throws {
        let log = Self.xcodeLog + "2023-11-14 22:13:22.000000+0100 App[1:2] é→✓ \u{1F600}\r\n"
        let whole = try read(log)
        XCTAssertEqual(lines(whole).count, 4)
        for chunk in 1...40 {
            XCTAssertEqual(try read(log, chunk: chunk), whole, "chunks of \(chunk)")
        }
        let bytes = Array(log.utf8)
        for split in 0...bytes.count {
            var reader = AppLogReader()
            var items = [AppLogItem]()
            reader.append(bytes[..<split])
            while let item = try reader.next() { items.append(item) }
            reader.append(bytes[split...])
            reader.finish()
            while let item = try reader.next() { items.append(item) }
            XCTAssertEqual(items, whole, "split at \(split)")
        }
    }

    func testALongLineIsCutAndSaid() throws {
        let limits = AppLogLimits(lineBytes: 64, entryBytes: 1024)
        // A two-byte é straddles the limit: the cut moves back to its start.
        let long =
            "2023-11-14 22:13:20 TX " + String(repeating: "a", count: 40) + "é" + String(repeating: "b", count: 100)
        let log = long + "\n2023-11-14 22:13:21 RX a5 81\n"
        for chunk in [1, 7, 64, .max] {
            let items = try read(log, chunk: chunk, limits: limits)
            let got = lines(items)
            XCTAssertEqual(got.count, 2, "chunks of \(chunk)")
            XCTAssertEqual(
                got.first?.text, "2023-11-14 22:13:20 TX " + String(repeating: "a", count: 40), "chunks of \(chunk)")
            XCTAssertEqual(items.count, 3)
            guard case .problem(let p)? = items.dropFirst().first else {
                return XCTFail("the problem follows its entry")
            }
            XCTAssertEqual(p.line, 1)
            XCTAssertEqual(p.diagnostic.id, "applog.line.long")
            XCTAssertEqual(p.diagnostic.field("bytes"), .int(Array(long.utf8).count))
            XCTAssertEqual(p.diagnostic.message, "line 1 is 165 bytes long: at most 64 are read, the rest is skipped")
        }
        // A long line at the end of the input, without a line end, and one before any entry.
        let items = try read("x" + String(repeating: "y", count: 200) + "\n" + long, chunk: 16, limits: limits)
        XCTAssertEqual(problems(items).map(\.line), [1, 2])
        XCTAssertEqual(lines(items).map(\.number), [2])
    }

    func testALongEntryDropsItsFurtherLines() throws {
        let limits = AppLogLimits(lineBytes: 64, entryBytes: 100)
        let log =
            "2023-11-14 22:13:20 TX first\n" + (1...10).map { "continuation \($0)" }.joined(separator: "\n")
            + "\n2023-11-14 22:13:21 RX a5 81\n"
        let items = try read(log, limits: limits)
        let got = lines(items)
        XCTAssertEqual(got.count, 2)
        XCTAssertLessThanOrEqual(got[0].text.utf8.count, 100)
        XCTAssertTrue(got[0].message.hasSuffix("continuation 4"), got[0].message)
        guard case .problem(let p)? = items.dropFirst().first else { return XCTFail("the problem follows its entry") }
        XCTAssertEqual(p.diagnostic.id, "applog.entry.long")
        XCTAssertEqual(p.diagnostic.field("dropped_lines"), .int(6))
        XCTAssertEqual(
            p.diagnostic.message,
            "the entry at line 1 would pass 100 bytes: 6 continuation lines (85 bytes) after line 5 are dropped")
    }

    func testDetectionHoldsAtMostFiftyLinesThenReads() throws {
        var reader = AppLogReader()
        let line = "11-14 22:13:20.036  1234  1250 D BLE     : TX a5 01\n"
        reader.append(Array(String(repeating: line, count: 50).utf8))
        XCTAssertNotNil(try reader.next(), "fifty lines decide; the entries come before the end")
        XCTAssertEqual(reader.format, .logcatThreadtime)
    }

    func testUnreadableLogsAreRefusedByName() throws {
        XCTAssertThrowsError(try read("hello\nworld\n")) {
            XCTAssertEqual($0 as? AppLogError, .unrecognised(line: "hello"))
        }
        XCTAssertEqual(try read(""), [])
        XCTAssertEqual(try read("\n\n\r\n"), [])
        // A given format reads what it can and skips the rest.
        XCTAssertEqual(lines(try read("hello\n" + AppLogFormatTests.time[0], format: .logcatTime)).map(\.number), [2])
    }

    func testHostileBytesNeverTrap() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "2023-11-14 22:13:20", "11-14 99:99:99.999", "9999999999999999999999", " ", "\n", "\r", "[", "]", "{", "}",
            "0x", "a5", ":", "(", ")", "D/", "+9999", "\u{FF}", "\u{0}", "[123:", "{\"timestamp\":", "é",
        ]
        for _ in 0..<300 {
            var bytes = [UInt8]()
            for _ in 0..<Int.random(in: 0..<80, using: &generator) {
                if Bool.random(using: &generator) {
                    bytes += Array(pieces.randomElement(using: &generator)!.utf8)
                } else {
                    bytes.append(UInt8.random(in: 0...255, using: &generator))
                }
            }
            for format in AppLogFormat.detectable {
                let items = try read(bytes, chunk: Int.random(in: 1...16, using: &generator), format: format)
                for line in lines(items) {
                    _ = line.time?.microsecondsSinceEpoch(nearest: 1_700_000_000_000_000)
                    _ = HexBytes.find(in: line.message)
                }
            }
            _ = try? read(bytes, chunk: 5)
        }
    }

    /// A bugreport's text as dumpstate writes it: sections, the logcat one among them.
    static let bugreportText = """
        ========================================================
        == dumpstate: 2023-11-14 22:14:00
        ========================================================
        ------ UPTIME (uptime) ------
        up 2 days
        ------ 0.003s was the duration of 'UPTIME' ------
        ------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------
        --------- beginning of main
        11-14 22:13:20.036 10123  1234  1250 D BLE     : TX command: a5 01 20
            continued
        11-14 22:13:20.090  u0_a12  1234  1251 W BLE     : RX: a5 81 00
        ------ 0.120s was the duration of 'SYSTEM LOG' ------
        ------ EVENT LOG (logcat -b events -v threadtime -v printable -v uid -d *:v) ------
        11-14 22:13:21.000  1000  1500  1500 I am_proc_start: [0,1234]
        ------ 0.010s was the duration of 'EVENT LOG' ------
        ------ SYSTEM LOG AFTER DONE (logcat -v threadtime -v printable -v uid -d *:v -T 2023-11-14 22:13:20.000) ------
        11-14 22:13:20.090  u0_a12  1234  1251 W BLE     : RX: a5 81 00
        ------ 0.100s was the duration of 'SYSTEM LOG AFTER DONE' ------

        """

    func testABugreportsLogcatSectionIsReadWithTheTextsLineNumbers() throws {
        for chunk in [.max, 7] {
            let items = try read(Self.bugreportText, chunk: chunk, bugreport: true)
            let got = lines(items)
            XCTAssertEqual(got.map(\.number), [9, 11], "numbered in the whole text")
            XCTAssertEqual(got.map(\.message), ["TX command: a5 01 20\n    continued", "RX: a5 81 00"])
            XCTAssertEqual(got.map(\.pid), [1234, 1234])
            XCTAssertEqual(problems(items), [])
        }
        // Read as a plain log, every logcat line counts, the events' too.
        XCTAssertEqual(lines(try read(Self.bugreportText)).map(\.number), [9, 11, 14, 17])
    }

    func testABugreportWithNoLogcatIsSaid() throws {
        let text = "== dumpstate\n------ UPTIME (uptime) ------\nup 2 days\n"
        XCTAssertThrowsError(try read(text, bugreport: true)) {
            XCTAssertEqual($0 as? AppLogError, .noLogcat)
            XCTAssertTrue("\($0)".contains("SYSTEM LOG"), "\($0)")
        }
        // An empty logcat section is a logcat with no lines.
        let empty =
            "------ SYSTEM LOG (logcat -v threadtime -d *:v) ------\n------ 0.1s was the duration of 'SYSTEM LOG' ------\n"
        XCTAssertEqual(try read(empty, bugreport: true), [])
    }

    /// A long line outside the sections is no problem of the log's.
    func testALongLineOutsideTheLogcatIsNotSaid() throws {
        let long = String(repeating: "x", count: 100)
        let text = "\(long)\n------ SYSTEM LOG (logcat) ------\n11-14 22:13:20.036  1234  1250 D BLE: \(long)\n"
        let items = try read(text, limits: AppLogLimits(lineBytes: 60), bugreport: true)
        XCTAssertEqual(problems(items).map(\.line), [3])
    }

    func testALogcatOfOnlyItsMarkerIsAnEmptyLogcat() throws {
        var reader = AppLogReader()
        reader.append(Array("--------- beginning of main\n".utf8))
        reader.finish()
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.format, .logcatThreadtime)
        XCTAssertEqual(reader.skippedLines, 1)
        XCTAssertEqual(try read("--------- beginning of main\n--------- beginning of system\n"), [])
    }

    func testLogcatBriefIsReadWithNoTime() throws {
        let log = (AppLogFormatTests.brief + AppLogFormatTests.brief).joined(separator: "\n")
        let got = lines(try read(log))
        XCTAssertEqual(got.map(\.number), [1, 2, 3, 4])
        XCTAssertEqual(got.map(\.time), [nil, nil, nil, nil])
        XCTAssertEqual(got.first?.tag, "BLE")
    }

    func testFlushGivesTheHeldEntryAndDetectsFromWhatIsHeld() throws {
        var reader = AppLogReader()
        reader.append(Array("11-14 22:13:20.036  1234  1250 D BLE: TX a5 01 20\n    more\n11-14 22:13:21".utf8))
        XCTAssertNil(try reader.next(), "fewer than 50 lines: held to detect the format")
        reader.flush()
        guard case .line(let l)? = try reader.next() else { return XCTFail("the held entry comes out") }
        XCTAssertEqual(l.message, "TX a5 01 20\n    more")
        XCTAssertNil(try reader.next(), "a line not yet ended stays unread")
        reader.append(Array(".000  1234  1250 D BLE: RX\n".utf8))
        reader.flush()
        guard case .line(let m)? = try reader.next() else { return XCTFail("the ended line comes out") }
        XCTAssertEqual([m.number, m.time?.second], [3, 21])
        // Nothing that shows a format: held, not refused.
        var prose = AppLogReader()
        prose.append(Array("a header line\n".utf8))
        prose.flush()
        XCTAssertNil(try prose.next())
        XCTAssertNil(prose.format)
    }
}
