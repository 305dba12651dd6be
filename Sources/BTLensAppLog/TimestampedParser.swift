/// An app's own logger: lines with a time (ISO 8601 or `YYYY-MM-DD HH:MM:SS[.fff] [±zzzz]`, with
/// `-` or `/` in the date, bare or in brackets) at or near their start, bracketed tags before or
/// after it (`[BLE][DATA][2023-11-14 22:13:20] TX …`, `2023-11-14 22:13:20.036 [BLE][DATA] TX …`),
/// and a level in brackets (`[INFO]`) or as an upper-case word (`ERROR`). Up to `leadWords` short
/// words may come before the time: a level letter or word, or a tag
/// (`P    [2021-04-04 18:50:40.848+0200]    [BASE_CONNECT_LOG    ]    [Bytes] …`).
/// Tags are joined by `/`; spaces inside brackets and between groups are not part of them.
enum TimestampedParser {
    static let levels: Set = [
        "TRACE", "VERBOSE", "DEBUG", "DBG", "INFO", "INF", "NOTICE", "WARN", "WARNING", "WRN", "ERROR", "ERR",
        "CRITICAL", "FATAL",
    ]
    /// Bracket groups read on either side of the time; more are part of the message.
    static let groupLimit = 8
    /// Words before the time, each at most `leadWordBytes`; the time starts within `leadBytes`.
    static let leadWords = 3
    static let leadWordBytes = 24
    static let leadBytes = 48

    static func parse(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        var lead: [String] = []
        while true {
            if let fields = parse(line, from: s, lead: lead) { return fields }
            guard lead.count < leadWords, let (word, after) = leadWord(s) else { return nil }
            lead.append(word)
            s = after
        }
    }

    /// The line read from `start`, after the words `lead` (a level, else tags).
    private static func parse(_ line: [UInt8], from start: ByteScanner, lead: [String]) -> LogFields? {
        var s = start
        var level = lead.first.flatMap { isLevel($0) ? $0 : nil }
        var tags = Array(lead.dropFirst(level == nil ? 0 : 1))
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

    /// A level: one of `levels`, or a single upper-case letter (logcat's `D`, a logger's `P`).
    private static func isLevel(_ word: String) -> Bool {
        levels.contains(word.uppercased()) || word.utf8.count == 1 && word.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5a }
    }

    /// A word before the time: letters, digits and `_-./:`, at most `leadWordBytes`, followed by
    /// spaces, and ending within `leadBytes` of the line's start.
    private static func leadWord(_ s: ByteScanner) -> (String, ByteScanner)? {
        var p = s
        let start = p.at
        while let b = p.peek, ByteScanner.isWordByte(b) || b == 0x2d || b == 0x2e || b == 0x2f || b == 0x3a {
            p.at += 1
        }
        let word = p.bytes[start..<p.at]
        guard !word.isEmpty, word.count <= leadWordBytes, p.skipSpaces() > 0, p.at < leadBytes else { return nil }
        return (String(line: word.last == 0x3a ? word.dropLast() : word), p)
    }

    /// `[text]` (1 to 256 bytes inside, no `[`) at the scanner: its text without the spaces at its
    /// ends, and the scanner past it and the spaces after it.
    private static func group(_ s: ByteScanner) -> (String, ByteScanner)? {
        var p = s
        guard p.take(UInt8(ascii: "[")) else { return nil }
        let start = p.at
        while let b = p.peek, b != UInt8(ascii: "]"), b != UInt8(ascii: "["), p.at - start < 256 { p.at += 1 }
        let inside = p.bytes[start..<p.at].trimmingSpaces()
        guard !inside.isEmpty, p.take(UInt8(ascii: "]")) else { return nil }
        p.skipSpaces()
        return (String(line: inside), p)
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
