import BTLensCore

extension CaptureDiff {
    /// The JSON form (docs/jsonl.md, `btlens diff --format json`): one object, for scripts.
    public var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.key("before")
        side(before, &w)
        w.key("after")
        side(after, &w)
        w.key("commands")
        w.beginArray()
        for c in commands {
            w.beginObject()
            w.field("dissector", c.dissector)
            w.field("command", c.command)
            w.key("name")
            if let n = c.name { w.string(n) } else { w.null() }
            w.key("before")
            command(c.before, &w)
            w.key("after")
            command(c.after, &w)
            w.key("latency_change")
            if let l = c.latencyChange {
                w.beginObject()
                w.key("median_ms")
                w.number(l.change)
                w.key("spread_ms")
                w.number(l.spread)
                w.field("test", LatencyChange.test)
                w.endObject()
            } else {
                w.null()
            }
            w.endObject()
        }
        w.endArray()
        w.key("diagnostics")
        w.beginArray()
        for d in diagnostics {
            w.beginObject()
            w.field("id", d.id)
            w.field("severity", d.severity.name)
            w.field("before", d.before)
            w.field("after", d.after)
            w.key("first_record_before")
            optional(d.firstRecordBefore, &w)
            w.key("first_record_after")
            optional(d.firstRecordAfter, &w)
            w.endObject()
        }
        w.endArray()
        w.key("connections")
        changes(connections, scope: "peer", &w)
        w.key("gatt")
        changes(gatt, scope: "server", &w)
        w.key("identity")
        changes(identity, scope: nil, &w)
        w.key("sequence")
        if let s = sequence {
            w.beginObject()
            w.field("index", s.index)
            w.key("before")
            steps(s.before, &w)
            w.key("after")
            steps(s.after, &w)
            w.endObject()
        } else {
            w.null()
        }
        w.key("regressions")
        w.beginArray()
        for r in regressions { w.string(r) }
        w.endArray()
        w.endObject()
        w.newline()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private func side(_ s: CaptureSummary, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("file", s.file)
        w.key("definitions")
        if let d = s.definitions { w.string(d) } else { w.null() }
        w.key("filter")
        if let f = s.filter { w.string(f) } else { w.null() }
        w.field("records", s.records)
        w.key("first_time")
        if let t = s.firstTime { w.time(t) } else { w.null() }
        w.key("last_time")
        if let t = s.lastTime { w.time(t) } else { w.null() }
        w.endObject()
    }

    private func command(_ c: CaptureSummary.Command?, _ w: inout JSONWriter) {
        guard let c else { return w.null() }
        w.beginObject()
        w.field("sent", c.sent)
        w.field("received", c.received)
        w.field("answered", c.answered)
        w.field("unanswered", c.unanswered)
        w.key("latency_ms")
        if let l = c.latency {
            w.beginObject()
            for (k, v) in [("min", l.min), ("p25", l.p25), ("median", l.median), ("p75", l.p75), ("p95", l.p95)]
                + [("max", l.max)]
            {
                w.key(named: k)
                w.number(v)
            }
            w.endObject()
        } else {
            w.null()
        }
        w.endObject()
    }

    private func optional(_ v: Int?, _ w: inout JSONWriter) {
        if let v { w.int(v) } else { w.null() }
    }

    private func changes(_ list: [Change], scope: String?, _ w: inout JSONWriter) {
        w.beginArray()
        for c in list {
            w.beginObject()
            if let scope { w.field(named: scope, c.scope) }
            w.field("name", c.name)
            w.key("before")
            if let b = c.before { w.string(b) } else { w.null() }
            w.key("after")
            if let a = c.after { w.string(a) } else { w.null() }
            w.endObject()
        }
        w.endArray()
    }

    private func steps(_ list: [CaptureSummary.Step], _ w: inout JSONWriter) {
        w.beginArray()
        for s in list {
            w.beginObject()
            w.field("record", s.record)
            w.field("direction", s.direction == .sent ? "sent" : "received")
            w.field("dissector", s.dissector)
            w.field("name", s.label)
            w.endObject()
        }
        w.endArray()
    }
}
