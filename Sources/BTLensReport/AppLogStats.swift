import BTLensCore
import BTLensDissect

/// What `stats --app-log` says of each log: how its clock was aligned, its lines shown, and how
/// many of them named the record that carried their bytes.
struct AppLogStats {
    struct Log {
        var source: String
        var alignment: AppLogAlignment?
        var lines = 0
        var matching = 0
    }

    /// In the order the merger said them (its alignments come before its lines).
    private(set) var logs: [Log] = []

    /// Counts `e` when it is a log's; false when it is not.
    mutating func count(_ e: Event) -> Bool {
        switch e.body {
        case .logAlignment(let a): self[a.source].alignment = a
        case .log(let l):
            self[l.source].lines += 1
            if l.matchesRecord != nil { self[l.source].matching += 1 }
        default: return false
        }
        return true
    }

    private subscript(source: String) -> Log {
        get { logs.first { $0.source == source } ?? Log(source: source) }
        set {
            if let i = logs.firstIndex(where: { $0.source == source }) {
                logs[i] = newValue
            } else {
                logs.append(newValue)
            }
        }
    }

    func json(_ w: inout JSONWriter) {
        w.beginArray()
        for l in logs {
            w.beginObject()
            w.field("source", l.source)
            if let a = l.alignment {
                w.field(named: "offset_ms", .decimal(a.offsetMicroseconds, scale: 3))
                w.field("method", a.method.rawValue)
                w.field("matched", a.matched)
                if a.wholeCapture { w.field("whole_capture", true) }
                if let n = a.readAheadLines { w.field("read_ahead_lines", n) }
            }
            w.field("lines", l.lines)
            w.field("lines_matching_records", l.matching)
            w.endObject()
        }
        w.endArray()
    }

    var text: [String] {
        guard !logs.isEmpty else { return [] }
        return ["App logs:    \(logs.count)"]
            + logs.map { l in
                var s =
                    "  \(TerminalText.safe(l.source)): \(l.lines) lines, \(l.matching) naming the record of their bytes"
                if let a = l.alignment {
                    let ms = FieldValue.decimalText(a.offsetMicroseconds, scale: 3)
                    let whole = a.wholeCapture ? " over the whole capture" : ""
                    s += "; offset \(ms) ms (\(a.method.rawValue), from \(a.matched) lines\(whole))"
                }
                return s
            }
    }
}
