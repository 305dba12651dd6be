/// Android logcat's line formats (`adb logcat -v FORMAT`; the layouts are in AOSP's
/// liblog/logprint.cpp, `android_log_formatLogLine`): `threadtime`, `time` and `brief`, each
/// with `-v year` (a 4-digit year before the date) and `-v usec` (6 fraction digits), and
/// `-v zone` (`+0100` after the time).
enum LogcatParser {
    static let levels = Set("VDIWEFAS".utf8)

    /// `11-14 22:13:20.036  1234  1250 D BLE     : TX …`
    static func threadtime(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: true), s.skipSpaces() > 0, let pid = s.number(),
            s.skipSpaces() > 0, let tid = s.number(), s.skipSpaces() > 0, let level = s.peek, levels.contains(level),
            s.peek(1) == 0x20
        else { return nil }
        s.at += 2
        guard let (tag, message) = tagAndMessage(&s) else { return nil }
        return LogFields(time: time, level: String(line: [level]), tag: tag, pid: pid, tid: tid, message: message)
    }

    /// `11-14 22:13:20.036 D/BLE( 1234): TX …`
    static func time(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: true), s.skipSpaces() > 0 else { return nil }
        return levelTagPid(&s, time: time)
    }

    /// `D/BLE( 1234): TX …`: no time. Recognised so that it can be refused by name.
    static func brief(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        return levelTagPid(&s, time: LogTime(year: nil, month: 1, day: 1, hour: 0, minute: 0, second: 0))
    }

    /// `D/TAG( PID): message`; the tag ends at the first `(` that a pid and `):` follow. The pid is
    /// padded to 5 characters: at most 8 spaces are looked at, so a line of `(` and spaces stays linear.
    private static func levelTagPid(_ s: inout ByteScanner, time: LogTime) -> LogFields? {
        guard let level = s.peek, levels.contains(level), s.peek(1) == UInt8(ascii: "/") else { return nil }
        s.at += 2
        let tagStart = s.at
        while let b = s.peek {
            if b == UInt8(ascii: "(") {
                var p = s
                p.at += 1
                while p.peek == 0x20 && p.at - s.at < 9 { p.at += 1 }
                if let pid = p.number(), p.take(UInt8(ascii: ")")), p.take(UInt8(ascii: ":")) {
                    _ = p.take(UInt8(ascii: " "))
                    let tag = String(line: s.bytes[tagStart..<s.at].trimmingSpaces())
                    return LogFields(
                        time: time, level: String(line: [level]), tag: tag, pid: pid, message: String(line: p.rest()))
                }
            }
            s.at += 1
        }
        return nil
    }

    /// `TAG   : message`: the tag, padded, ends at the first `: ` (or a `:` ending the line).
    private static func tagAndMessage(_ s: inout ByteScanner) -> (String, String)? {
        let start = s.at
        while let b = s.peek {
            if b == UInt8(ascii: ":") && (s.peek(1) == 0x20 || s.peek(1) == nil) {
                let tag = String(line: s.bytes[start..<s.at].trimmingSpaces())
                s.at += 1
                _ = s.take(UInt8(ascii: " "))
                return (tag, String(line: s.rest()))
            }
            s.at += 1
        }
        return nil
    }
}
