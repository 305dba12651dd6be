/// Apple's unified log as `log show` prints it (log(1), `--style default` and `--style compact`),
/// and the Xcode console's lines (NSLog's layout, which `os_log` lines also take there).
enum OSLogParser {
    /// `2023-11-14 22:13:20.036123+0100 0x1a2b     Default     0x0   123    0    App: (Sub) [cat] message`:
    /// time, thread, type, activity, pid, TTL, then `process: (sender) [subsystem:category] message`.
    static func defaultStyle(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: false), s.skipSpaces() > 0, s.take("0x"),
            let tid = s.hexNumber(), s.skipSpaces() > 0, let level = word(&s), s.skipSpaces() > 0, s.take("0x"),
            s.hexNumber() != nil, s.skipSpaces() > 0, let pid = s.number(), s.skipSpaces() > 0, s.number() != nil,
            s.skipSpaces() > 0
        else { return nil }
        var process: String?
        var p = s
        if let name = p.upTo(UInt8(ascii: ":")), p.take(UInt8(ascii: " ")) || p.isAtEnd {
            process = String(line: name)
            s = p
            var sender = s
            if s.peek == UInt8(ascii: "("), sender.upTo(UInt8(ascii: ")")) != nil {
                s = sender
                s.skipSpaces()
            }
        }
        let category = bracket(&s)
        return LogFields(
            time: time, level: level, tag: category ?? process, pid: pid, tid: tid, message: String(line: s.rest()))
    }

    /// `2023-11-14 22:13:20.036 Df App[123:1a2b] [cat] message`; the type is one of compact's
    /// abbreviations, which keeps an Xcode line of an app named `Db Tool` from reading as one.
    static func compact(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: false), s.take(UInt8(ascii: " ")), let level = word(&s),
            compactTypes.contains(level), s.skipSpaces() > 0, let (process, pid, tid) = processIDs(&s, hexThread: true)
        else { return nil }
        s.skipSpaces()
        let category = bracket(&s)
        return LogFields(
            time: time, level: level, tag: category ?? process, pid: pid, tid: tid, message: String(line: s.rest()))
    }

    static let compactTypes: Set = ["Df", "Db", "I", "E", "F", "A"]

    /// `2023-11-14 22:13:20.036123+0100 App[123:45678] [cat] message` (the thread is decimal in NSLog's
    /// layout; hex when it has letters).
    static func xcode(_ line: [UInt8]) -> LogFields? {
        var s = ByteScanner(line)
        guard let time = LogTimeParser.parse(&s, yearless: false), s.take(UInt8(ascii: " ")),
            let (_, pid, tid) = processIDs(&s, hexThread: false)
        else { return nil }
        s.skipSpaces()
        return LogFields(time: time, tag: bracket(&s), pid: pid, tid: tid, message: String(line: s.rest()))
    }

    /// A run of letters.
    private static func word(_ s: inout ByteScanner) -> String? {
        let start = s.at
        while let b = s.peek, ByteScanner.isLetter(b) { s.at += 1 }
        return s.at > start ? String(line: s.bytes[start..<s.at]) : nil
    }

    /// `Name[pid:tid]` followed by a space or the end: the name ends at the first `[` that a pid, a
    /// thread and `]` follow (names may hold spaces and brackets).
    private static func processIDs(_ s: inout ByteScanner, hexThread: Bool) -> (String, Int, Int)? {
        let start = s.at
        while let b = s.peek {
            if b == UInt8(ascii: "["), s.at > start {
                var p = s
                p.at += 1
                if let pid = p.number(), p.take(UInt8(ascii: ":")), let tid = thread(&p, hex: hexThread),
                    p.take(UInt8(ascii: "]")), p.peek == nil || p.peek == 0x20
                {
                    let name = String(line: s.bytes[start..<s.at])
                    s = p
                    return (name, pid, tid)
                }
            }
            s.at += 1
        }
        return nil
    }

    private static func thread(_ s: inout ByteScanner, hex: Bool) -> Int? {
        var d = s
        if !hex, let n = d.number(), !(d.peek.map { ByteScanner.hexDigit($0) != nil } ?? false) {
            s = d
            return n
        }
        return s.hexNumber()
    }

    /// `[text] ` at the scanner (at most 256 bytes inside): its text, and the scanner past it and its spaces.
    static func bracket(_ s: inout ByteScanner) -> String? {
        guard s.peek == UInt8(ascii: "[") else { return nil }
        var p = s
        p.at += 1
        let start = p.at
        while let b = p.peek, b != UInt8(ascii: "]"), p.at - start < 256 { p.at += 1 }
        guard p.take(UInt8(ascii: "]")), p.at - 1 > start, p.peek == nil || p.peek == 0x20 else { return nil }
        let text = String(line: p.bytes[start..<p.at - 1])
        p.skipSpaces()
        s = p
        return text
    }
}
