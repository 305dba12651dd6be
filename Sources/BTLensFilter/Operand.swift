/// A value written in a filter, read every way it can be once, when the filter is compiled: what
/// it is compared with decides which reading counts (a number with a number, bytes with bytes, the
/// text with a string), so nothing is parsed per event.
struct Operand {
    /// The text as written (a string's content, without its quotes).
    let text: String
    let int: Int64?
    let number: Double?
    let bytes: [UInt8]?
    let bool: Bool?

    init(text: String, int: Int64? = nil, number: Double? = nil, bytes: [UInt8]? = nil, bool: Bool? = nil) {
        self.text = text
        self.int = int
        self.number = number ?? int.map(Double.init)
        self.bytes = bytes
        self.bool = bool
    }

    /// A word or string: numbers (decimal, `0x` hex, fractions) only unquoted; bytes (`a5:01:20`,
    /// `a50120`) either way.
    init(_ v: Syntax.Located) {
        let int = v.quoted ? nil : Self.integer(v.text)
        let number = v.quoted || int != nil ? nil : Self.decimal(v.text)
        let bool: Bool? = v.quoted ? nil : (v.text == "true" ? true : v.text == "false" ? false : nil)
        self.init(text: v.text, int: int, number: number, bytes: Self.hexBytes(v.text), bool: bool)
    }

    static func integer(_ s: String) -> Int64? {
        let negative = s.hasPrefix("-")
        let digits = negative ? s.dropFirst() : s[...]
        // One sign: `--9223372036854775808` would negate Int64.min.
        guard !digits.hasPrefix("-"), !digits.hasPrefix("+"), !digits.dropFirst(2).hasPrefix("-") else { return nil }
        let magnitude: Int64?
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            magnitude = Int64(digits.dropFirst(2), radix: 16)
        } else {
            magnitude = digits.allSatisfy(\.isASCII) ? Int64(digits) : nil
        }
        return magnitude.map { negative ? -$0 : $0 }
    }

    /// A decimal fraction (`12.5`); not `inf`, `nan` or exponents, which no one types for these fields.
    static func decimal(_ s: String) -> Double? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
        return Double(s)
    }

    /// Hex bytes: pairs of digits, all separated by `:` or none (`a5:01:20`, `a50120`).
    static func hexBytes(_ s: String) -> [UInt8]? {
        let pairs: [Substring]
        if s.contains(":") {
            pairs = s.split(separator: ":", omittingEmptySubsequences: false)
            guard pairs.allSatisfy({ $0.count == 2 }) else { return nil }
        } else {
            guard !s.isEmpty, s.count % 2 == 0 else { return nil }
            let chars = Array(s)
            pairs = stride(from: 0, to: chars.count, by: 2).map { Substring(String(chars[$0...$0 + 1])) }
        }
        var out: [UInt8] = []
        for p in pairs {
            guard p.allSatisfy(\.isHexDigit), let b = UInt8(p, radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }

    /// ISO 8601 in UTC, as the timeline writes it (`2023-11-14T22:13:20.036250Z`), or with an offset
    /// from UTC (`+01:00`, `-0130`, `+02`); the fraction and the seconds may be left out, the `Z`
    /// too. Microseconds since the epoch.
    static func time(_ s: String) -> Int64? {
        var t = Substring(s)
        if t.hasSuffix("Z") { t = t.dropLast() }
        var offset: Int64 = 0
        // A sign after the `T` starts the offset (a date's dashes come before it).
        if let clock = t.firstIndex(of: "T"), let sign = t[clock...].lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = t[t.index(after: sign)...].filter { $0 != ":" }
            guard zone.count == 2 || zone.count == 4, zone.allSatisfy(\.isASCII), let v = Int64(zone) else {
                return nil
            }
            let (hours, minutes) = zone.count == 4 ? (v / 100, v % 100) : (v, 0)
            guard hours < 24, minutes < 60 else { return nil }
            offset = (hours * 60 + minutes) * 60_000_000 * (t[sign] == "-" ? -1 : 1)
            t = t[..<sign]
        }
        let dateTime = t.split(separator: "T", omittingEmptySubsequences: false)
        guard dateTime.count <= 2, let datePart = dateTime.first else { return nil }
        let date = datePart.split(separator: "-", omittingEmptySubsequences: false).map { Int64($0) }
        guard date.count == 3, let y = date[0], let m = date[1], let d = date[2], (1...12).contains(m),
            (1...monthDays(y, m)).contains(d), datePart.split(separator: "-")[0].count == 4
        else { return nil }
        var micros: Int64 = 0
        if dateTime.count == 2 {
            let clock = dateTime[1].split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(clock.count), let h = Int64(clock[0]), let mi = Int64(clock[1]), h < 24, mi < 60
            else { return nil }
            micros = (h * 3600 + mi * 60) * 1_000_000
            if clock.count == 3 {
                let secParts = clock[2].split(separator: ".", omittingEmptySubsequences: false)
                guard secParts.count <= 2, let sec = Int64(secParts[0]), sec < 61 else { return nil }
                micros += sec * 1_000_000
                if secParts.count == 2 {
                    let frac = secParts[1]
                    guard (1...6).contains(frac.count), let f = Int64(frac) else { return nil }
                    var scale: Int64 = 1
                    for _ in frac.count..<6 { scale *= 10 }
                    micros += f * scale
                }
            }
        }
        return days(y, m, d) * 86_400_000_000 + micros - offset
    }

    /// Days in month `m` (1–12) of year `y`: 2023-02-31 is no date, not 3 March.
    static func monthDays(_ y: Int64, _ m: Int64) -> Int64 {
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        return m == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(m) ? 30 : 31
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
