import BTLensCore
import BTLensDissect

/// The report as one JSON document (docs/report.md): the same content as the HTML.
public enum ReportJSON {
    public static func render(_ r: Report) -> [UInt8] {
        var bytes: [UInt8] = []
        write(r) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The document, handed to `out` in pieces of about `Report.piece` bytes: a report of 20,000
    /// rows is megabytes, which need not all be in memory at once.
    public static func write(_ r: Report, to out: (UnsafeBufferPointer<UInt8>) -> Void) {
        var w = JSONWriter()
        w.beginObject()
        header(&w, r)
        w.key("connections")
        connections(&w, r.connections, out)
        w.key("advertisers")
        AdvertisingSummary.json(&w, r.advertisers)
        AdvertisingSummary.json(&w, r.advertisersNotListed)
        w.key("accessories")
        w.beginArray()
        for a in r.accessories {
            w.beginObject()
            w.identification(a)
            w.endObject()
        }
        w.endArray()
        w.key("gatt")
        services(&w, r.services, out)
        w.key("streams")
        streams(&w, r.streams)
        w.key("diagnostics")
        diagnostics(&w, r.diagnostics)
        w.key("commands")
        commands(&w, r.commands)
        w.key("app_logs")
        appLogs(&w, r.appLogs)
        w.key("timeline")
        timeline(&w, r, out)
        w.key("sequence")
        sequence(&w, r.messages)
        w.key("series")
        series(&w, r)
        w.endObject()
        w.newline()
        w.drain(out)
    }

    /// What was read: the file, its records and times, and the definitions in use.
    private static func header(_ w: inout JSONWriter, _ r: Report) {
        w.field("schema", "btlens-report")
        w.field("version", Report.version)
        w.field("file", r.file)
        w.field("format", r.format)
        w.field("link_type", r.linkType)
        w.field("records", r.records)
        w.key("records_by_kind")
        w.beginObject()
        for (k, n) in r.recordsByKind { w.field(named: k, n) }
        w.endObject()
        w.field("truncated_records", r.truncatedRecords)
        if let t = r.firstTime { w.field("first_time", t.iso8601) }
        if let t = r.lastTime { w.field("last_time", t.iso8601) }
        strings(&w, "capture_information", r.captureInformation)
        w.field("redacted", r.redacted)
        if let d = r.definitions {
            w.key("definitions")
            w.definitions(d)
        }
        if let f = r.filter { w.field("filter", f) }
        w.field("undecoded_bytes", r.undecodedBytes)
    }

    private static func connections(
        _ w: inout JSONWriter, _ connections: Report.Connections,
        _ out: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        w.beginArray()
        for c in connections {
            if w.count >= Report.piece { w.drain(out) }
            w.beginObject()
            w.field("handle", c.handle)
            optional(&w, "address", c.address)
            optional(&w, "name", c.name)
            w.field("transport", c.transport)
            w.field("role", c.role)
            optional(&w, "opened_record", c.opened)
            optional(&w, "closed_record", c.closed)
            optional(&w, "opened_offset", c.openedAt)
            optional(&w, "closed_offset", c.closedAt)
            optional(&w, "disconnect_reason", c.reason)
            w.field("inferred", c.inferred)
            optional(&w, "att_mtu", c.attMTU)
            w.field("att_mtu_default", c.attMTUDefault)
            w.key("life")
            w.beginArray()
            for s in c.steps { w.string(s) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    private static func services(
        _ w: inout JSONWriter, _ services: [Report.Service],
        _ out: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        w.beginArray()
        for s in services {
            if w.count >= Report.piece { w.drain(out) }
            w.beginObject()
            w.field("server", s.server)
            w.field("uuid", s.uuid)
            optional(&w, "name", s.name)
            w.key("characteristics")
            w.beginArray()
            for c in s.characteristics {
                w.beginObject()
                w.field("handle", c.handle)
                w.field("uuid", c.uuid)
                optional(&w, "name", c.name)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    private static func streams(_ w: inout JSONWriter, _ streams: [Report.Stream]) {
        w.beginArray()
        for s in streams {
            w.beginObject()
            w.field("stream", s.label)
            w.field("connection", s.connection)
            optional(&w, "dissector", s.dissector)
            w.field("sent", s.sent)
            w.field("received", s.received)
            w.endObject()
        }
        w.endArray()
    }

    private static func diagnostics(_ w: inout JSONWriter, _ diagnostics: [Report.DiagnosticGroup]) {
        w.beginArray()
        for d in diagnostics {
            w.beginObject()
            w.field("id", d.id)
            w.field("severity", d.severity.name)
            w.field("count", d.count)
            w.key("records")
            w.beginArray()
            for rec in d.records { w.int(rec) }
            w.endArray()
            w.field("first_message", d.firstMessage)
            w.field("summary", d.summary)
            w.endObject()
        }
        w.endArray()
    }

    private static func commands(_ w: inout JSONWriter, _ commands: [Report.Command]) {
        w.beginArray()
        for c in commands {
            w.beginObject()
            w.field("dissector", c.dissector)
            w.field("command", c.command)
            optional(&w, "name", c.name)
            w.field("sent", c.sent)
            w.field("received", c.received)
            w.field("answered", c.answered)
            w.field("unanswered", c.unanswered)
            if let l = c.latency {
                w.key("latency_ms")
                w.beginObject()
                for (k, v) in l {
                    w.key(named: k)
                    w.number(v)
                }
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
    }

    private static func appLogs(_ w: inout JSONWriter, _ logs: [Report.LogAlignment]) {
        w.beginArray()
        for a in logs {
            w.beginObject()
            w.field("source", a.source)
            // As JSONL's log.alignment writes it.
            w.field(named: "offset_ms", .decimal(a.offsetMicroseconds, scale: 3))
            w.field("matched", a.matched)
            w.field("method", a.method)
            w.field("lines", a.lines)
            w.endObject()
        }
        w.endArray()
    }

    private static func timeline(_ w: inout JSONWriter, _ r: Report, _ out: (UnsafeBufferPointer<UInt8>) -> Void) {
        w.beginObject()
        w.field("events", r.events)
        w.field("log_lines", r.logLines)
        w.field("shown", r.rows.count)
        w.field("omitted", r.omittedEvents)
        w.field("window", r.window)
        w.key("rows")
        w.beginArray()
        for row in r.rows {
            self.row(&w, row)
            if w.count >= Report.piece { w.drain(out) }
        }
        w.endArray()
        w.endObject()
    }

    private static func sequence(_ w: inout JSONWriter, _ messages: [Report.Message]) {
        w.beginArray()
        for m in messages {
            w.beginObject()
            w.field("lane", m.log == nil ? "air" : "app log")
            w.field("record", m.record)
            w.field("row", m.row)
            if let l = m.log {
                w.field("source", l.source)
                w.field("line", l.line)
                optional(&w, "matches_record", l.matchesRecord)
            } else {
                w.field("direction", m.sent ? "sent" : "received")
            }
            w.field("label", m.label)
            optional(&w, "response_to", m.responseTo)
            if let l = m.latencyMs {
                w.key("latency_ms")
                w.number(l)
            }
            strings(&w, "diagnostics", m.diagnostics)
            w.endObject()
        }
        w.endArray()
    }

    private static func series(_ w: inout JSONWriter, _ r: Report) {
        w.beginObject()
        w.key("bucket_seconds")
        w.number(r.bucketSeconds)
        w.key("streams")
        w.beginArray()
        for (stream, counts) in r.series {
            w.beginObject()
            w.field("stream", stream)
            w.key("counts")
            w.beginArray()
            for n in counts { w.int(n) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    private static func row(_ w: inout JSONWriter, _ row: Report.Row) {
        w.beginObject()
        w.field("index", row.index)
        w.field("record", row.record)
        w.field("offset", row.offset)
        w.field("arrow", row.arrow)
        optional(&w, "connection", row.connection)
        w.field("layer", row.layer)
        w.field("text", row.text)
        optional(&w, "severity", row.severity?.name)
        optional(&w, "diagnostic", row.diagnosticId)
        optional(&w, "stream", row.stream)
        optional(&w, "command", row.command)
        if !row.fields.isEmpty {
            w.key("fields")
            w.beginObject()
            for (k, v) in row.fields { w.field(named: k, v) }
            w.endObject()
        }
        optional(&w, "hex", row.hex)
        if let l = row.log {
            w.key("log")
            w.beginObject()
            w.field("source", l.source)
            w.field("line", l.line)
            optional(&w, "level", l.level)
            optional(&w, "tag", l.tag)
            w.field("message", l.message)
            optional(&w, "matches_record", l.matchesRecord)
            w.endObject()
        }
        w.endObject()
    }

    private static func strings(_ w: inout JSONWriter, _ key: StaticString, _ values: [String]) {
        w.key(key)
        w.beginArray()
        for v in values { w.string(v) }
        w.endArray()
    }

    private static func optional(_ w: inout JSONWriter, _ key: StaticString, _ v: String?) {
        if let v {
            w.field(key, v)
        } else {
            w.key(key)
            w.null()
        }
    }

    private static func optional<T: BinaryInteger>(_ w: inout JSONWriter, _ key: StaticString, _ v: T?) {
        if let v {
            w.field(key, v)
        } else {
            w.key(key)
            w.null()
        }
    }
}
