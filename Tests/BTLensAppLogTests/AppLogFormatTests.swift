import XCTest

@testable import BTLensAppLog

final class AppLogFormatTests: XCTestCase {
    private func fields(_ format: AppLogFormat, _ line: String) throws -> LogFields {
        try XCTUnwrap(format.fields(Array(line.utf8)), "\(format): \(line)")
    }

    private let ms36 = 36_000_000

    // adb logcat -v threadtime (AOSP liblog logprint.cpp): pid and tid padded to 5, the tag to 8.
    static let threadtime = [
        "--------- beginning of main",
        "11-14 22:13:20.036  1234  1250 D BLE     : TX command 0x01: A5 01 20",
        "11-14 22:13:20.089  1234  1251 I BluetoothGatt: onCharacteristicChanged() - Device=AA:BB:CC:DD:EE:FF handle=42",
        "11-14 22:13:20.090  1234  1251 D BLE     : RX: a5 81 00",
    ]

    func testLogcatThreadtime() throws {
        let f = try fields(.logcatThreadtime, Self.threadtime[1])
        XCTAssertEqual(
            f.time,
            LogTime(
                year: nil, month: 11, day: 14, hour: 22, minute: 13, second: 20,
                nanosecond: ms36, fractionDigits: 3))
        XCTAssertEqual([f.level, f.tag, f.message], ["D", "BLE", "TX command 0x01: A5 01 20"])
        XCTAssertEqual([f.pid, f.tid], [1234, 1250])
        XCTAssertEqual(try fields(.logcatThreadtime, Self.threadtime[2]).tag, "BluetoothGatt")
        // -v year, -v usec, -v zone.
        let year = try fields(.logcatThreadtime, "2023-11-14 22:13:20.036123 +0100  1234  1250 E BLE: write failed:")
        XCTAssertEqual([year.time?.year, year.time?.utcOffsetSeconds, year.time?.fractionDigits], [2023, 3600, 6])
        XCTAssertEqual([year.level, year.tag, year.message], ["E", "BLE", "write failed:"])
        XCTAssertNil(LogcatParser.threadtime(Array("11-14 22:13:20.036  1234  1250 X BLE: x".utf8)), "no level X")
    }

    /// A bugreport's logcat (`-v uid`): the uid before the pid, a number or a user name.
    func testLogcatThreadtimeWithTheUidColumn() throws {
        for (line, tag) in [
            ("11-14 22:13:20.036 10123  1234  1250 D BLE     : TX a5 01 20", "BLE"),
            ("11-14 22:13:20.036  u0_a12  1234  1250 D BLE: TX a5 01 20", "BLE"),
            ("11-14 22:13:20.036  root   653   653 I init    : starting", "init"),
            ("2023-11-14 22:13:20.036  1002  1234  1250 W bt_stack: x", "bt_stack"),
        ] {
            let f = try fields(.logcatThreadtime, line)
            XCTAssertEqual(f.tag, tag, line)
            XCTAssertEqual([f.pid, f.tid], tag == "init" ? [653, 653] : [1234, 1250], line)
        }
        XCTAssertNil(LogcatParser.threadtime(Array("11-14 22:13:20.036  1  2  3  4 D BLE: x".utf8)), "four numbers")
        XCTAssertNil(LogcatParser.threadtime(Array("11-14 22:13:20.036 root D BLE: x".utf8)), "a uid, no pid")
    }

    // adb logcat -v time.
    static let time = [
        "11-14 22:13:20.036 D/BLE( 1234): TX command: a5 01 20",
        "11-14 22:13:20.089 I/Bluetooth Gatt (x)( 1234): onCharacteristicChanged",
        "11-14 22:13:20.090 W/BLE(12345): RX: a5 81 00",
    ]

    func testLogcatTime() throws {
        let f = try fields(.logcatTime, Self.time[0])
        XCTAssertEqual([f.level, f.tag, f.message], ["D", "BLE", "TX command: a5 01 20"])
        XCTAssertEqual(f.pid, 1234)
        XCTAssertEqual(f.time?.nanosecond, ms36)
        XCTAssertEqual(try fields(.logcatTime, Self.time[1]).tag, "Bluetooth Gatt (x)")
        XCTAssertEqual(try fields(.logcatTime, Self.time[2]).pid, 12345)
    }

    // adb logcat -v brief: no time at all.
    static let brief = ["D/BLE     ( 1234): TX command: a5 01 20", "I/ActivityManager(  567): Start proc"]

    func testLogcatBriefProcessAndTagWriteNoTime() throws {
        let f = try fields(.logcatBrief, Self.brief[0])
        XCTAssertEqual([f.level, f.tag, f.message], ["D", "BLE", "TX command: a5 01 20"])
        XCTAssertEqual(f.pid, 1234)
        XCTAssertNil(f.time)
        XCTAssertFalse(AppLogFormat.logcatBrief.isTimed)
        let p = try fields(.logcatProcess, Self.process[0])
        XCTAssertEqual([p.level, p.tag, p.message], ["D", "BLE", "TX command: a5 01 20"])
        XCTAssertEqual(p.pid, 1234)
        XCTAssertNil(p.time)
        let t = try fields(.logcatTag, Self.tag[0])
        XCTAssertEqual([t.level, t.tag, t.message], ["D", "BLE", "TX command: a5 01 20"])
        XCTAssertNil(t.time)
        XCTAssertNil(LogcatParser.process(Array("D( 1234) no tag at the end".utf8)))
        XCTAssertNil(LogcatParser.tag(Array("D/: no tag".utf8)))
    }

    // adb logcat -v process and -v tag.
    static let process = ["D( 1234) TX command: a5 01 20  (BLE)", "I(  567) Start proc  (ActivityManager)"]
    static let tag = ["D/BLE     : TX command: a5 01 20", "I/ActivityManager: Start proc"]

    /// Random text that happens to look like a brief line is not a log: it takes 3 in a row.
    func testUntimedFormatsAreDetectedOnlyFromARunOfLines() {
        let three = Self.brief + ["W/BLE     ( 1234): RX: a5 81 00"]
        XCTAssertEqual(AppLogFormat.detect(firstLines: three), .logcatBrief)
        XCTAssertNil(AppLogFormat.detect(firstLines: Self.brief), "two lines are not enough")
        XCTAssertNil(AppLogFormat.detect(firstLines: [Self.brief[0], "prose", Self.brief[1], "more", three[2]]))
        XCTAssertNil(AppLogFormat.detect(firstLines: ["I/O error: disk full", "E/S: other", "nothing else"]))
        XCTAssertEqual(AppLogFormat.detect(firstLines: Self.process + [Self.process[0]]), .logcatProcess)
        XCTAssertEqual(AppLogFormat.detect(firstLines: Self.tag + [Self.tag[0]]), .logcatTag)
    }

    // log show (log(1), --style default): the header, then time, thread, type, activity, pid, TTL.
    static let osLogDefault = [
        "Filtering the log data using \"subsystem == \"com.example.app\"\"",
        "Timestamp                       Thread     Type        Activity             PID    TTL  ",
        "2023-11-14 22:13:20.036123+0100 0x1a2b     Default     0x0                  123    0    App: (CoreBluetooth) [com.example.app:BLE] TX a5012007",
        "2023-11-14 22:13:20.090000+0100 0x1a2c     Error       0x3f4                123    14   App: [com.example.app:BLE] write failed",
        "2023-11-14 22:13:20.100000+0100 0x1a2c     Info        0x0                  123    0    bluetoothd: connection up",
    ]

    func testLogShowDefault() throws {
        let f = try fields(.osLogDefault, Self.osLogDefault[2])
        XCTAssertEqual([f.level, f.tag, f.message], ["Default", "com.example.app:BLE", "TX a5012007"])
        XCTAssertEqual([f.pid, f.tid], [123, 0x1a2b])
        XCTAssertEqual(f.time?.microsecondsSinceEpoch(fallbackYear: 0), 1_699_996_400_036_123)
        XCTAssertEqual(try fields(.osLogDefault, Self.osLogDefault[3]).level, "Error")
        let noCategory = try fields(.osLogDefault, Self.osLogDefault[4])
        XCTAssertEqual([noCategory.tag, noCategory.message], ["bluetoothd", "connection up"])
    }

    // log show --style compact.
    static let osLogCompact = [
        "Timestamp               Ty Process[PID:TID]",
        "2023-11-14 22:13:20.036 Df App[123:1a2b] [com.example.app:BLE] TX a5012007",
        "2023-11-14 22:13:20.090 E  App[123:1a2c] [com.example.app:BLE] write failed",
        "2023-11-14 22:13:20.100 I  bluetoothd[88:3e4] connection up",
    ]

    func testLogShowCompact() throws {
        let f = try fields(.osLogCompact, Self.osLogCompact[1])
        XCTAssertEqual([f.level, f.tag, f.message], ["Df", "com.example.app:BLE", "TX a5012007"])
        XCTAssertEqual([f.pid, f.tid], [123, 0x1a2b])
        XCTAssertEqual(try fields(.osLogCompact, Self.osLogCompact[2]).level, "E")
        XCTAssertEqual(try fields(.osLogCompact, Self.osLogCompact[3]).tag, "bluetoothd")
        XCTAssertNil(OSLogParser.compact(Array("2023-11-14 22:13:20.036 Xy App[123:1a2b] hi".utf8)))
    }

    // log show --style ndjson: one object per event, a summary object last.
    static let osLogNDJSON = [
        #"{"traceID":1234,"eventMessage":"TX <a5012007 00010203>","eventType":"logEvent","source":null,"formatString":"TX %@","activityIdentifier":0,"subsystem":"com.example.app","category":"BLE","threadID":6699,"senderImageUUID":"5B1C","backtrace":{"frames":[]},"bootUUID":"","processImagePath":"\/private\/var\/containers\/Bundle\/Application\/X\/App.app\/App","timestamp":"2023-11-14 22:13:20.036123+0100","senderImagePath":"\/System\/Library\/Frameworks\/CoreBluetooth.framework\/CoreBluetooth","machTimestamp":1234567,"messageType":"Default","processImageUUID":"0A2C","processID":123,"senderProgramCounter":1,"parentActivityIdentifier":0,"timezoneName":""}"#,
        #"{"eventMessage":"connection up","subsystem":"","category":"","threadID":6700,"processImagePath":"\/usr\/sbin\/bluetoothd","timestamp":"2023-11-14 22:13:20.100000+0100","messageType":"Info","processID":88}"#,
        #"{"count":2,"finished":1}"#,
    ]

    func testLogShowNDJSON() throws {
        let f = try fields(.osLogNDJSON, Self.osLogNDJSON[0])
        XCTAssertEqual([f.level, f.tag, f.message], ["Default", "com.example.app:BLE", "TX <a5012007 00010203>"])
        XCTAssertEqual([f.pid, f.tid], [123, 6699])
        XCTAssertEqual(f.time?.microsecondsSinceEpoch(fallbackYear: 0), 1_699_996_400_036_123)
        XCTAssertEqual(try fields(.osLogNDJSON, Self.osLogNDJSON[1]).tag, "bluetoothd", "no subsystem: the process")
        XCTAssertNil(OSLogNDJSON.fields(Array(Self.osLogNDJSON[2].utf8)))
        XCTAssertNil(OSLogNDJSON.fields(Array(#"{"timestamp":"yesterday"}"#.utf8)))
        XCTAssertNil(OSLogNDJSON.fields(Array("{not json".utf8)))
    }

    // The Xcode console: NSLog's layout (and os_log's there), multi-line messages as they are.
    static let xcode = [
        "2023-11-14 22:13:20.036123+0100 App[123:45678] [BLE] TX {length = 8, bytes = 0xa5012007 00010203}",
        "2023-11-14 22:13:20.090000+0100 My App[123:45679] didUpdateValueFor FFF1: <a5810000>",
        "2023-11-14 22:13:20.100000+0100 App[123:1a2b] services: (",
        "    \"<CBService: 0x280c0c000, isPrimary = YES, UUID = FFF0>\"",
        ")",
    ]

    func testXcodeConsole() throws {
        let f = try fields(.xcode, Self.xcode[0])
        XCTAssertEqual([f.level, f.tag, f.message], [nil, "BLE", "TX {length = 8, bytes = 0xa5012007 00010203}"])
        XCTAssertEqual([f.pid, f.tid], [123, 45678])
        let spaced = try fields(.xcode, Self.xcode[1])
        XCTAssertNil(spaced.tag)
        XCTAssertEqual(spaced.message, "didUpdateValueFor FFF1: <a5810000>")
        XCTAssertEqual(try fields(.xcode, Self.xcode[2]).tid, 0x1a2b, "a thread with letters is hex")
    }

    // An app's own logger: a time first (or bracketed after tags), bracketed tags and a level.
    static let timestamped = [
        "2023-11-14 22:13:20 +0100 [BLE][DATA] TX command: A5 01 20",
        "2023-11-14T22:13:21.250+01:00 [INFO] [BLE] RX a5 81 00",
        "[BLE][DATA][2023-11-14 22:13:22] TX command: A5 01 21",
        "2023-11-14 22:13:23,004 ERROR: write failed",
    ]

    func testAnAppsOwnLogger() throws {
        let f = try fields(.timestamped, Self.timestamped[0])
        XCTAssertEqual([f.level, f.tag, f.message], [nil, "BLE/DATA", "TX command: A5 01 20"])
        XCTAssertEqual([f.time?.fractionDigits, f.time?.utcOffsetSeconds], [0, 3600])
        let level = try fields(.timestamped, Self.timestamped[1])
        XCTAssertEqual([level.level, level.tag, level.message], ["INFO", "BLE", "RX a5 81 00"])
        let before = try fields(.timestamped, Self.timestamped[2])
        XCTAssertEqual([before.tag, before.message], ["BLE/DATA", "TX command: A5 01 21"])
        XCTAssertEqual(before.time?.second, 22)
        let bare = try fields(.timestamped, Self.timestamped[3])
        XCTAssertEqual([bare.level, bare.tag, bare.message], ["ERROR", nil, "write failed"])
        XCTAssertNil(TimestampedParser.parse(Array("[BLE] no time here".utf8)))
        XCTAssertNil(TimestampedParser.parse(Array("2023-11-14 22:13:20x".utf8)))
    }

    /// A real phone app's logger (issue 46): a level letter, the time bracketed with its zone, tags
    /// padded inside their brackets, several spaces between; times after a few short words, in the
    /// common spellings.
    func testTimesAfterALevelOrTagInTheFirstColumns() throws {
        let line =
            "P    [2021-04-04 18:50:40.848+0200]        [BASE_CONNECT_LOG    ]    [BytesDataConnect] addCmdData( 03 2a 55 )"
        let f = try fields(.timestamped, line)
        XCTAssertEqual(
            [f.level, f.tag, f.message], ["P", "BASE_CONNECT_LOG/BytesDataConnect", "addCmdData( 03 2a 55 )"])
        XCTAssertEqual(
            [f.time?.hour, f.time?.minute, f.time?.nanosecond, f.time?.utcOffsetSeconds], [18, 50, 848_000_000, 7200])
        XCTAssertEqual(
            AppLogFormat.detect(firstLines: [line, line.replacingOccurrences(of: "addCmd", with: "x")]), .timestamped)
        let words = try fields(.timestamped, "I 4242 BLE: 2023/11/14 22:13:20.036 TX a5 01 20")
        XCTAssertEqual([words.level, words.tag, words.message], ["I", "4242/BLE", "TX a5 01 20"])
        XCTAssertEqual([words.time?.year, words.time?.month, words.time?.day], [2023, 11, 14])
        let tagFirst = try fields(.timestamped, "BLE 2023-11-14T22:13:20Z RX a5")
        XCTAssertEqual([tagFirst.level, tagFirst.tag], [nil, "BLE"])
        // A time further in is the message's, not the line's; so is one after four words.
        XCTAssertNil(
            TimestampedParser.parse(Array("the connection to the accessory closed at 2023-11-14 22:13:20".utf8)))
        XCTAssertNil(TimestampedParser.parse(Array("a b c d 2023-11-14 22:13:20 x".utf8)))
        XCTAssertNil(TimestampedParser.parse(Array("2023/11-14 22:13:20 mixed separators".utf8)))
    }

    func testACustomPattern() throws {
        let p = try AppLogPattern(
            #"^(?<level>[A-Z]) (?<time>\d\d/\d\d/\d{4} [\d:.]+) <(?<tag>\w+)> (?<message>.*)$"#,
            timeFormat: "%d/%m/%Y %H:%M:%S.%f")
        let f = try fields(.custom(p), "D 14/11/2023 22:13:20.036 <BLE> TX a5 01 20")
        XCTAssertEqual([f.level, f.tag, f.message], ["D", "BLE", "TX a5 01 20"])
        XCTAssertEqual(f.time?.microsecondsSinceEpoch(fallbackYear: 0), 1_700_000_000_036_000)
        XCTAssertNil(AppLogFormat.custom(p).fields(Array("D 14/13/2023 22:13:20.036 <BLE> TX".utf8)), "bad month")
        // Without a layout the built-in parser reads the time; without a message group, the rest.
        let plain = try AppLogPattern(#"^@(?<time>\S+)"#)
        let g = try fields(.custom(plain), "@2023-11-14T22:13:20Z  hello")
        XCTAssertEqual(g.message, "hello")
        XCTAssertEqual(g.time?.utcOffsetSeconds, 0)
        XCTAssertThrowsError(try AppLogPattern("(?<when>.*)")) {
            XCTAssertTrue("\($0)".contains("no group named time"))
        }
        XCTAssertThrowsError(try AppLogPattern("(?<time>"))
        XCTAssertThrowsError(try AppLogPattern("(?<time>.*)", timeFormat: "%Q"))
        XCTAssertEqual(
            AppLogFormat.custom(p),
            AppLogFormat.custom(try AppLogPattern(p.pattern, timeFormat: "%d/%m/%Y %H:%M:%S.%f")))
    }

    func testEachFormatsSampleIsDetectedAsItself() {
        let samples: [(AppLogFormat, [String])] = [
            (.logcatThreadtime, Self.threadtime), (.logcatTime, Self.time), (.logcatBrief, Self.brief + Self.brief),
            (.logcatProcess, Self.process + Self.process), (.logcatTag, Self.tag + Self.tag),
            (.osLogDefault, Self.osLogDefault), (.osLogCompact, Self.osLogCompact), (.osLogNDJSON, Self.osLogNDJSON),
            (.xcode, Self.xcode), (.timestamped, Self.timestamped),
        ]
        for (format, lines) in samples {
            XCTAssertEqual(AppLogFormat.detect(firstLines: lines), format, "\(format)")
        }
        let withYear = Self.threadtime.map { $0.hasPrefix("11-") ? "2023-" + $0 : $0 }
        XCTAssertEqual(AppLogFormat.detect(firstLines: withYear), .logcatThreadtime, "not an app logger's line")
        XCTAssertNil(AppLogFormat.detect(firstLines: ["hello", "", "world"]))
        XCTAssertNil(AppLogFormat.detect(firstLines: []))
        // The most lines win, not the first: one stray app-logger line among logcat lines.
        XCTAssertEqual(AppLogFormat.detect(firstLines: [Self.timestamped[0]] + Self.time), .logcatTime)
    }
}
