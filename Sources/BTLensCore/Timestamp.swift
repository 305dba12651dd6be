/// Microseconds since the Unix epoch (UTC). Captures carry µs resolution at best.
public struct Timestamp: Sendable, Hashable, Comparable {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    /// ISO 8601 in UTC with six fractional digits, e.g. `2017-11-11T10:03:04.000123Z`.
    public var iso8601: String {
        let (secs, micros) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        var days = secs / 86_400
        var rem = secs % 86_400
        var frac = micros
        if frac < 0 {
            frac += 1_000_000
            rem -= 1
        }
        if rem < 0 {
            rem += 86_400
            days -= 1
        }
        let (y, m, d) = Timestamp.civil(fromDays: days)
        return
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2)).\(pad(frac, 6))Z"
    }

    /// Seconds relative to `origin`, with six decimals: `-0.000100`, `12.345678`.
    public func offset(from origin: Timestamp) -> String {
        let (delta, overflow) = microseconds.subtractingReportingOverflow(origin.microseconds)
        if overflow { return "?" }
        let sign = delta < 0 ? "-" : ""
        let magnitude = delta.magnitude
        return "\(sign)\(magnitude / 1_000_000).\(pad(Int64(magnitude % 1_000_000), 6))"
    }

    /// Proleptic Gregorian date from days since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value.magnitude)
    let sign = value < 0 ? "-" : ""
    return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
}
