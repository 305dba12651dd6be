/// An app's own logger: lines that begin with a time (ISO 8601 or `YYYY-MM-DD HH:MM:SS[.fff] [±zzzz]`,
/// bare or in brackets), bracketed tags before or after it (`[BLE][DATA][2023-11-14 22:13:20] TX …`,
/// `2023-11-14 22:13:20.036 [BLE][DATA] TX …`), and a level in brackets (`[INFO]`) or as an
/// upper-case word (`ERROR`). Tags are joined by `/`.
enum TimestampedParser {
    static let levels: Set = [
        "TRACE", "VERBOSE", "DEBUG", "DBG", "INFO", "INF", "NOTICE", "WARN", "WARNING", "WRN", "ERROR", "ERR",
        "CRITICAL", "FATAL",
    ]
    /// Bracket groups read on either side of the time; more are part of the message.
    static let groupLimit = 8

    static func parse(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        var tags = [String]()
        var level: String?
        var time: LogTime?
        while time == nil, tags.count < groupLimit, let (inside, after) = group(s) {
            if let t = LogTimeParser.parse(whole: Substring(inside)), t.year != nil {
                time = t
            } else {
                tags.append(inside)
            }
            s = after
        }
        let bracketed = time != nil
        if time == nil {
            time = LogTimeParser.parse(&s, yearless: false)
        }
        guard let time,
            bracketed || s.isAtEnd || s.skipSpaces() > 0 || s.peek == UInt8(ascii: "[") || s.peek == UInt8(ascii: ":")
        else { return nil }
        var groups = 0
        while groups < groupLimit, let (inside, after) = group(s) {
            if level == nil, levels.contains(inside.uppercased()) { level = inside } else { tags.append(inside) }
            s = after
            groups += 1
        }
        s.skipSpaces()
        if level == nil, let (word, after) = bareLevel(s) {
            level = word
            s = after
        }
        for separator in [": ", "- "] where s.take(separator) { s.skipSpaces() }
        return LogFields(
            time: time, level: level, tag: tags.isEmpty ? nil : tags.joined(separator: "/"),
            message: String(line: s.rest()))
    }

    /// `[text]` (1 to 256 bytes inside, no `[`) at the scanner: its text and the scanner past it and a space.
    private static func group(_ s: ByteScanner) -> (String, ByteScanner)? {
        var p = s
        guard p.take(UInt8(ascii: "[")) else { return nil }
        let start = p.at
        while let b = p.peek, b != UInt8(ascii: "]"), b != UInt8(ascii: "["), p.at - start < 256 { p.at += 1 }
        guard p.at > start, p.take(UInt8(ascii: "]")) else { return nil }
        let inside = String(line: p.bytes[start..<p.at - 1])
        _ = p.take(UInt8(ascii: " "))
        return (inside, p)
    }

    /// An upper-case level word followed by a space or `:`.
    private static func bareLevel(_ s: ByteScanner) -> (String, ByteScanner)? {
        var p = s
        let start = p.at
        while let b = p.peek, b >= UInt8(ascii: "A"), b <= UInt8(ascii: "Z"), p.at - start < 8 { p.at += 1 }
        guard p.peek == 0x20 || p.peek == UInt8(ascii: ":") else { return nil }
        let word = String(line: p.bytes[start..<p.at])
        guard levels.contains(word) else { return nil }
        _ = p.take(UInt8(ascii: ":"))
        p.skipSpaces()
        return (word, p)
    }
}
