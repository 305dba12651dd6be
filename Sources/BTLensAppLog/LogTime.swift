import BTLensCore

/// A time as a log line writes it: the fields it gives, nothing assumed. Logcat writes no year,
/// most loggers no zone, an app's `Date()` print no fraction; the clock alignment fills them in.
public struct LogTime: Sendable, Hashable {
    /// Nil when the line writes none (logcat's default formats).
    public var year: Int?
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// The written fraction in nanoseconds (digits past the ninth are dropped).
    public var nanosecond: Int
    /// Fraction digits written, at most 9: 0 is second precision, 3 milliseconds.
    public var fractionDigits: Int
    /// The written zone as seconds east of UTC; nil when none is written.
    public var utcOffsetSeconds: Int?

    public init(
        year: Int?, month: Int, day: Int, hour: Int, minute: Int, second: Int, nanosecond: Int = 0,
        fractionDigits: Int = 0, utcOffsetSeconds: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
        self.fractionDigits = fractionDigits
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Microseconds since the Unix epoch, with `fallbackYear` when the line writes no year and
    /// `assumedUTCOffsetSeconds` when it writes no zone. Fields are whatever a caller put in, so
    /// every step saturates at Int64's ends instead of trapping (docs/limits.md).
    public func microsecondsSinceEpoch(fallbackYear: Int, assumedUTCOffsetSeconds: Int = 0) -> Int64 {
        // Years past ±10^9 saturate anyway; clamping first keeps the day count's arithmetic in range.
        let y = Int64(clamping: max(min(year ?? fallbackYear, 1_000_000_000), -1_000_000_000))
        let m = Int64(clamping: max(min(month, 1 << 40), -(1 << 40)))
        // Months outside 1–12 roll into the year, as mktime does.
        let (carry, month0) = (m - 1).quotientAndRemainder(dividingBy: 12)
        let fixedMonth = month0 < 0 ? month0 + 13 : month0 + 1
        let fixedYear = y.saturatingAdding(month0 < 0 ? carry - 1 : carry)
        let days = Self.daysFromCivil(year: fixedYear, month: fixedMonth)
            .saturatingAdding(Int64(clamping: day).saturatingSubtracting(1))
        let offset = Int64(clamping: utcOffsetSeconds ?? assumedUTCOffsetSeconds)
        let seconds = days.saturatingMultiplying(by: 86_400)
            .saturatingAdding(Int64(clamping: hour).saturatingMultiplying(by: 3600))
            .saturatingAdding(Int64(clamping: minute).saturatingMultiplying(by: 60))
            .saturatingAdding(Int64(clamping: second))
            .saturatingSubtracting(offset)
        return seconds.saturatingMultiplying(by: 1_000_000).saturatingAdding(Int64(clamping: nanosecond) / 1000)
    }

    /// Microseconds since the Unix epoch; a time that writes no year takes the year, of the one
    /// before `reference`'s (µs since the epoch, UTC), its own and the one after, that puts it
    /// nearest `reference`: December's lines beside a capture of 1 January are last year's.
    public func microsecondsSinceEpoch(nearest reference: Int64, assumedUTCOffsetSeconds: Int = 0) -> Int64 {
        guard year == nil else {
            return microsecondsSinceEpoch(fallbackYear: 0, assumedUTCOffsetSeconds: assumedUTCOffsetSeconds)
        }
        let y = Self.year(of: reference)
        var best: (time: Int64, distance: UInt64)?
        for candidate in [y - 1, y, y + 1] {
            let t = microsecondsSinceEpoch(fallbackYear: candidate, assumedUTCOffsetSeconds: assumedUTCOffsetSeconds)
            let distance = (t &- reference).magnitude
            if best.map({ distance < $0.distance }) ?? true { best = (t, distance) }
        }
        return best?.time ?? 0
    }

    /// The UTC year of a time in µs since the epoch (Howard Hinnant's `civil_from_days`).
    static func year(of microseconds: Int64) -> Int {
        let days = microseconds.dividedRoundingDown(by: 86_400_000_000) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        return Int(yoe + era * 400 + (mp >= 10 ? 1 : 0))
    }

    /// Days from 1970-01-01 to the first of `month` (1–12) in `year`, proleptic Gregorian (Howard
    /// Hinnant's `days_from_civil`); `year` is within ±2 × 10^11, so nothing here overflows.
    static func daysFromCivil(year: Int64, month: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity (`/` rounds towards zero).
    fileprivate func dividedRoundingDown(by d: Int64) -> Int64 {
        let (q, r) = quotientAndRemainder(dividingBy: d)
        return r < 0 ? q - 1 : q
    }
}
