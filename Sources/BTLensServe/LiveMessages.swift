import BTLensCore
import BTLensFilter

/// The control lines of the /events stream (docs/serve.md): each a JSON object whose type begins
/// with `btlens.`, beside the JSONL contract's events.
enum LiveMessages {
    static func hello(mode: LiveHub.Mode, source: String, filter: String, report: Bool) -> [UInt8] {
        line("btlens.hello") { w in
            w.key("mode")
            w.string(mode.rawValue)
            w.key("source")
            w.string(source)
            w.key("filter")
            w.string(filter)
            w.key("report")
            w.bool(report)
        }
    }

    static func reset(filter: String) -> [UInt8] {
        line("btlens.reset") { w in
            w.key("filter")
            w.string(filter)
        }
    }

    static func filterError(_ e: FilterError) -> [UInt8] {
        line("btlens.filter.error") { w in
            w.key("expression")
            w.string(e.expression)
            w.key("message")
            w.string(e.message)
            // In Unicode code points, as a page's script counts them (the error's are characters).
            let start = e.expression.index(
                e.expression.startIndex, offsetBy: min(e.column, e.expression.count))
            let end = e.expression.index(start, offsetBy: min(e.length, e.expression[start...].count))
            w.key("column")
            w.int(e.expression[..<start].unicodeScalars.count)
            w.key("length")
            w.int(max(1, e.expression[start..<end].unicodeScalars.count))
        }
    }

    static func status(_ h: LiveHub.Held, _ r: LiveReader) -> [UInt8] {
        line("btlens.status") { w in
            w.key("state")
            w.string(h.state.rawValue)
            w.key("records")
            w.int(h.records)
            w.key("events")
            w.int(h.events)
            w.key("held")
            w.int(h.entries.count)
            w.key("dropped")
            w.int(r.dropped)
            w.key("evicted_before")
            w.int(h.evictedBefore)
        }
    }

    static func end() -> [UInt8] { line("btlens.end") { _ in } }

    /// `{"type":TYPE,…}`, what `body` writes after the type.
    private static func line(_ type: StaticString, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("type")
        w.string(literal: type)
        body(&w)
        w.endObject()
        return w.bytes
    }

    static func details(_ d: RecordDetails) -> [UInt8] {
        line("btlens.details") { w in
            w.key("record")
            w.int(d.record)
            w.key("lines")
            w.beginArray()
            for line in d.lines { w.string(line) }
            w.endArray()
            w.key("hex")
            w.hex(d.bytes)
            w.key("bytes")
            w.int(d.originalLength)
            w.key("note")
            if let note = d.note { w.string(note) } else { w.null() }
        }
    }
}
