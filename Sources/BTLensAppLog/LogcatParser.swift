/// Android logcat's line formats (`adb logcat -v FORMAT`; the layouts are in AOSP's
/// liblog/logprint.cpp, `android_log_formatLogLine`): `threadtime` (with `-v uid`'s column, as a
/// bugreport writes it), `time`, and the untimed `brief`, `process` and `tag`; the timed ones with
/// `-v year` (a 4-digit year before the date), `-v usec` (6 fraction digits) and `-v zone` (`+0100`
/// after the time). `-v printable` changes no layout.
enum LogcatParser {
    static let levels = Set("VDIWEFAS".utf8)

    /// `11-14 22:13:20.036  1234  1250 D BLE     : TX …`; with `-v uid`, the uid before the pid, a
    /// number or a user name (`11-14 22:13:20.036 10123  1234  1250 D …`, `… u0_a12  1234  1250 D …`).
    static func threadtime(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: true), s.skipSpaces() > 0 else { return nil }
        var named = s
        if userName(&named), named.skipSpaces() > 0 { s = named }
        guard var pid = s.number(), s.skipSpaces() > 0, var tid = s.number(), s.skipSpaces() > 0 else { return nil }
        if let third = s.number() {
            guard s.skipSpaces() > 0 else { return nil }
            (pid, tid) = (tid, third)
        }
        guard let level = s.peek, levels.contains(level), s.peek(1) == 0x20 else { return nil }
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

    /// `D/BLE     ( 1234): TX …`: no time.
    static func brief(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        return levelTagPid(&s, time: nil)
    }

    /// `D( 1234) TX …  (BLE)`: no time; the tag in brackets after two spaces at the end.
    static func process(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let level = s.peek, levels.contains(level), s.peek(1) == UInt8(ascii: "(") else { return nil }
        s.at += 2
        while s.peek == 0x20 && s.at < 9 { s.at += 1 }
        guard let pid = s.number(), s.take(UInt8(ascii: ")")), s.take(UInt8(ascii: " ")) else { return nil }
        var rest = Array(s.rest())
        guard rest.last == UInt8(ascii: ")"), let open = rest.lastIndex(of: UInt8(ascii: "(")), open >= 2,
            rest[open - 2] == 0x20, rest[open - 1] == 0x20
        else { return nil }
        let tag = String(line: rest[open + 1..<rest.count - 1])
        rest.removeSubrange(open - 2..<rest.count)
        return LogFields(time: nil, level: String(line: [level]), tag: tag, pid: pid, message: String(line: rest))
    }

    /// `D/BLE     : TX …`: no time, no pid.
    static func tag(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let level = s.peek, levels.contains(level), s.peek(1) == UInt8(ascii: "/") else { return nil }
        s.at += 2
        guard let (tag, message) = tagAndMessage(&s), !tag.isEmpty else { return nil }
        return LogFields(time: nil, level: String(line: [level]), tag: tag, message: message)
    }

    /// A user name in `-v uid`'s column (`root`, `u0_a12`): a letter, then letters, digits and `_`.
    private static func userName(_ s: inout ByteScanner) -> Bool {
        guard let first = s.peek, ByteScanner.isLetter(first) else { return false }
        while let b = s.peek, ByteScanner.isWordByte(b) { s.at += 1 }
        return true
    }

    /// `D/TAG( PID): message`; the tag ends at the first `(` that a pid and `):` follow. The pid is
    /// padded to 5 characters: at most 8 spaces are looked at, so a line of `(` and spaces stays linear.
    private static func levelTagPid(_ s: inout ByteScanner, time: LogTime?) -> LogFields? {
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
