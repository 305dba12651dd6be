/// A strftime-like time layout for a custom pattern's `time` group, for times the built-in parser
/// does not read (`14/11/2023 22:13:20.036`, `Nov 14 22:13:20`). Directives: `%Y` (4-digit year),
/// `%y` (2 digits, 2000–2099), `%m`, `%d`, `%H`, `%M`, `%S` (1 or 2 digits; `%d` may be space-padded),
/// `%b` (English month abbreviation, any case), `%f` (1–9 fraction digits, more are read and dropped),
/// `%z` (`Z`, `±hhmm`, `±hh:mm`), `%T` (`%H:%M:%S`), `%%`. A space matches one or more spaces; any
/// other character matches itself. The whole group must match.
public struct LogTimeFormat: Sendable, Equatable {
    public let layout: String
    private let parts: [Part]

    private enum Part: Equatable {
        case literal(UInt8)
        case spaces
        case field(Character)
    }

    private static let directives: Set<Character> = ["Y", "y", "m", "d", "H", "M", "S", "b", "f", "z"]

    public init(_ layout: String) throws {
        var parts = [Part]()
        var chars = layout.makeIterator()
        while let c = chars.next() {
            if c == " " {
                parts.append(.spaces)
            } else if c == "%" {
                guard let d = chars.next() else { throw AppLogError.badTimeFormat(layout, "it ends with a lone %") }
                if d == "%" {
                    parts.append(.literal(UInt8(ascii: "%")))
                } else if d == "T" {
                    parts += [
                        .field("H"), .literal(UInt8(ascii: ":")), .field("M"), .literal(UInt8(ascii: ":")), .field("S"),
                    ]
                } else if Self.directives.contains(d) {
                    parts.append(.field(d))
                } else {
                    throw AppLogError.badTimeFormat(layout, "%\(d) is not a directive it knows")
                }
            } else {
                parts += Array(String(c).utf8).map(Part.literal)
            }
        }
        guard parts.contains(.field("H")) else { throw AppLogError.badTimeFormat(layout, "it has no hour (%H or %T)") }
        self.layout = layout
        self.parts = parts
    }

    /// The time in `text`, which must match the layout whole.
    public func parse(_ text: Substring) -> LogTime? {
        var s = ByteScanner(Array(text.utf8))
        var t = LogTime(year: nil, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        for part in parts {
            switch part {
            case .literal(let b):
                guard s.take(b) else { return nil }
            case .spaces:
                guard s.skipSpaces() > 0 else { return nil }
            case .field(let d):
                guard read(d, &s, into: &t) else { return nil }
            }
        }
        guard s.isAtEnd, (1...12).contains(t.month), (1...31).contains(t.day), t.hour < 24, t.minute < 60,
            t.second <= 60
        else { return nil }
        return t
    }

    private func read(_ d: Character, _ s: inout ByteScanner, into t: inout LogTime) -> Bool {
        switch d {
        case "Y": t.year = s.digits(4)
        case "y": t.year = s.digits(2).map { 2000 + $0 }
        case "m": t.month = s.number(most: 2) ?? 0
        case "d":
            _ = s.take(UInt8(ascii: " "))
            t.day = s.number(most: 2) ?? 0
        case "H": return assign(s.number(most: 2), to: &t.hour)
        case "M": return assign(s.number(most: 2), to: &t.minute)
        case "S": return assign(s.number(most: 2), to: &t.second)
        case "b": t.month = month(&s) ?? 0
        case "f":
            guard let b = s.peek, ByteScanner.digit(b) != nil else { return false }
            (t.nanosecond, t.fractionDigits) = LogTimeParser.fraction(&s)
        case "z":
            guard let z = LogTimeParser.zone(&s) else { return false }
            t.utcOffsetSeconds = z
        default: return false
        }
        return d != "Y" && d != "y" || t.year != nil
    }

    private func assign(_ value: Int?, to field: inout Int) -> Bool {
        guard let value else { return false }
        field = value
        return true
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private func month(_ s: inout ByteScanner) -> Int? {
        guard s.at + 3 <= s.bytes.count else { return nil }
        let word = String(line: s.bytes[s.at..<s.at + 3]).lowercased()
        guard let i = Self.months.firstIndex(of: word) else { return nil }
        s.at += 3
        return i + 1
    }
}
