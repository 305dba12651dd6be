import BTLensCore

/// An entry being read: its first line's fields and bytes, and the continuation lines joined to it,
/// at most `limit` bytes in all.
struct EntryBuilder {
    let number: Int
    let fields: LogFields
    let first: [UInt8]
    private var continuation: [UInt8] = []
    private var droppedLines = 0
    private var droppedBytes = 0
    private var lastKept: Int
    var problems: [AppLogItem] = []

    init(number: Int, fields: LogFields, first: [UInt8]) {
        self.number = number
        self.fields = fields
        self.first = first
        lastKept = number
    }

    /// Joins line `number`, after `blanks` blank lines, unless the entry would pass `limit` bytes.
    mutating func `continue`(with bytes: [UInt8], number: Int, after blanks: Int, limit: Int) {
        let added = blanks + 1 + bytes.count
        guard droppedLines == 0, first.count + continuation.count + added <= limit else {
            droppedLines += 1
            droppedBytes = droppedBytes.saturatingAdding(bytes.count)
            return
        }
        continuation += repeatElement(0x0a, count: blanks + 1)
        continuation += bytes
        lastKept = number
    }

    var line: AppLogLine {
        let rest = continuation.isEmpty ? "" : String(line: continuation)
        return AppLogLine(
            number: number, time: fields.time, level: fields.level, tag: fields.tag, pid: fields.pid, tid: fields.tid,
            message: fields.message + rest, text: String(line: first) + rest)
    }

    func droppedDiagnostic(limit: Int) -> Diagnostic? {
        guard droppedLines > 0 else { return nil }
        return Diagnostic(
            AppLogDiagnostics.entryLong,
            "the entry at line \(number) would pass \(limit) bytes: \(droppedLines) continuation lines "
                + "(\(droppedBytes) bytes) after line \(lastKept) are dropped",
            fields: [
                ("line", .int(number)), ("dropped_lines", .int(droppedLines)), ("dropped_bytes", .int(droppedBytes)),
            ])
    }
}
