/// The times log lines begin with: ISO 8601 (`2023-11-14T22:13:20.036Z`, `…+01:00`), the space-separated
/// form loggers and `log show` write (`2023-11-14 22:13:20.036123+0100`, `2023-11-14 21:13:20 +0000`,
/// `2023/11/14 22:13:20.036`,
/// Python's comma `2023-11-14 22:13:20,036`) and logcat's year-less `11-14 22:13:20.036`.
enum LogTimeParser {
    /// The time at the scanner, which it moves past; nil, moving nothing, when none is there.
    /// `yearless` accepts `MM-DD …` too. The time must end at a non-digit.
    static func parse(_ s: inout ByteScanner, yearless: Bool) -> LogTime? {
        var t = s
        guard let time = fields(&t, yearless: yearless), !(t.peek.map { ByteScanner.digit($0) != nil } ?? false) else {
            return nil
        }
        s = t
        return time
    }

    /// A whole string as a time (an ndjson `timestamp`, a custom pattern's `time` group).
    static func parse(whole text: Substring) -> LogTime? {
        var s = ByteScanner(Array(text.utf8))
        guard let time = parse(&s, yearless: true), s.isAtEnd else { return nil }
        return time
    }

    private static func fields(_ s: inout ByteScanner, yearless: Bool) -> LogTime? {
        var year: Int?
        // The date's separator: `-`, or `/` (`2023/11/14`) after a year.
        var separator = UInt8(ascii: "-")
        if let b = s.peek(4), b == UInt8(ascii: "-") || b == UInt8(ascii: "/"), let y = s.digits(4) {
            year = y
            separator = b
            _ = s.take(b)
        } else if !yearless {
            return nil
        }
        guard let month = s.digits(2), s.take(separator), let day = s.digits(2),
            year != nil && s.take(UInt8(ascii: "T")) || s.take(UInt8(ascii: " ")),
            let hour = s.digits(2), s.take(UInt8(ascii: ":")), let minute = s.digits(2), s.take(UInt8(ascii: ":")),
            let second = s.digits(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var time = LogTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if s.peek == UInt8(ascii: ".") || s.peek == UInt8(ascii: ","), let d = s.peek(1), ByteScanner.digit(d) != nil {
            s.at += 1
            (time.nanosecond, time.fractionDigits) = fraction(&s)
        }
        time.utcOffsetSeconds = zone(&s)
        return time
    }

    /// Fraction digits as nanoseconds and how many were written (at most 9 count; the rest are read).
    static func fraction(_ s: inout ByteScanner) -> (Int, Int) {
        var nanos = 0
        var digits = 0
        while let b = s.peek, let d = ByteScanner.digit(b) {
            if digits < 9 {
                nanos = nanos * 10 + d
                digits += 1
            }
            s.at += 1
        }
        for _ in digits..<9 { nanos *= 10 }
        return (nanos, digits)
    }

    /// `Z`, `+hh:mm`, `+hhmm` or `+hh` right after the time, or `+hhmm`/`+hh:mm` after one space.
    static func zone(_ s: inout ByteScanner) -> Int? {
        if s.take(UInt8(ascii: "Z")) { return 0 }
        var t = s
        let spaced = t.take(UInt8(ascii: " "))
        guard let sign = t.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        t.at += 1
        guard let hours = t.digits(2), hours < 24 else { return nil }
        var minutes = 0
        let colon = t.take(UInt8(ascii: ":"))
        if let m = t.digits(2) {
            minutes = m
        } else if colon || spaced {
            return nil
        }
        guard minutes < 60 else { return nil }
        s = t
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
