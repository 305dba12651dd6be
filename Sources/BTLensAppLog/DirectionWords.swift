/// The words that say which way logged bytes went. Words are runs of letters, split where
/// camelCase starts a word (`didWriteValue` has `write`, `onCharacteristicChanged` has `changed`,
/// Android's notification callback); `->` and `<-` count as words.
enum DirectionWords {
    static let sent: Set = [
        "tx", "send", "sends", "sending", "sent", "write", "writes", "writing", "wrote", "written",
    ]
    static let received: Set = [
        "rx", "recv", "receive", "receives", "receiving", "received", "notify", "notifying", "notified", "notification",
        "notifications", "indication", "indicated", "read", "reads", "reading", "changed",
    ]

    /// The direction words of `u` (a message's UTF-8), with their byte ranges, in order.
    static func find(_ u: [UInt8]) -> [(Range<Int>, TransferDirection)] {
        var found = [(Range<Int>, TransferDirection)]()
        func add(_ r: Range<Int>) {
            guard r.count <= 13 else { return }
            let word = String(decoding: u[r].map { $0 | 0x20 }, as: UTF8.self)
            if sent.contains(word) {
                found.append((r, .sent))
            } else if received.contains(word) {
                found.append((r, .received))
            }
        }
        var start: Int?
        var i = 0
        while i < u.count {
            let b = u[i]
            if ByteScanner.isLetter(b) {
                if let s = start, isUpper(b), i > s, !isUpper(u[i - 1]) || i + 1 < u.count && isLower(u[i + 1]) {
                    add(s..<i)
                    start = i
                } else if start == nil {
                    start = i
                }
            } else {
                if let s = start { add(s..<i) }
                start = nil
                if i + 1 < u.count, b == UInt8(ascii: "-") && u[i + 1] == UInt8(ascii: ">") {
                    found.append((i..<i + 2, .sent))
                } else if i + 1 < u.count, b == UInt8(ascii: "<") && u[i + 1] == UInt8(ascii: "-") {
                    found.append((i..<i + 2, .received))
                }
            }
            i += 1
        }
        if let s = start { add(s..<u.count) }
        return found
    }

    /// The nearest word ending before `run`, else the first starting after it.
    static func direction(of run: Range<Int>, among words: [(Range<Int>, TransferDirection)]) -> TransferDirection? {
        words.last { $0.0.upperBound <= run.lowerBound }?.1 ?? words.first { $0.0.lowerBound >= run.upperBound }?.1
    }

    private static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5a }
    private static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7a }
}
