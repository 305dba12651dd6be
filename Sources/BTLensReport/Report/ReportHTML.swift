import BTLensCore
import BTLensDissect

/// The report as one self-contained HTML page: no network access (inline style, script and SVG
/// under a Content-Security-Policy that forbids remote loads), readable on a laptop and printable.
/// Every string from the capture is escaped for HTML after control characters are made visible.
public enum ReportHTML {
    /// Connections listed in the summary; the JSON report has them all.
    static let connectionLimit = 200

    public static func render(_ r: Report, generator: String) -> String {
        var page = ""
        write(r, generator: generator) { page += $0 }
        return page
    }

    /// The page, handed to `out` in pieces of about `Report.piece` bytes: a report of 20,000 rows
    /// is megabytes, which need not all be in memory at once.
    public static func write(_ r: Report, generator: String, to out: (String) -> Void) {
        var h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        h += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(ReportHTMLAssets.contentSecurityPolicy)\">\n"
        h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        h += "<title>btlens report: \(e(r.file))</title>\n<style>\(ReportHTMLAssets.css)</style></head>\n<body>\n"
        h += header(r)
        h +=
            "<nav><a href=\"#diagnostics\">Diagnostics</a><a href=\"#summary\">Summary</a><a href=\"#sequence\">Sequence</a>"
        h += "<a href=\"#charts\">Charts</a><a href=\"#timeline-section\">Timeline</a></nav>\n"
        h += diagnostics(r)
        h += summary(r)
        h += sequence(r)
        h += charts(r)
        timeline(r, into: &h, out)
        h += "<footer><p class=\"note\">\(e(generator)). Record numbers are Wireshark's frame numbers.</p></footer>\n"
        h += "<pre id=\"selftest\" hidden></pre>\n<script>\(ReportHTMLAssets.script)</script>\n</body></html>\n"
        out(h)
    }

    /// HTML-escaped, with control characters and bidi overrides shown as escapes.
    static func e(_ s: String) -> String {
        // Most strings are plain ASCII with nothing to escape: returned as they are.
        if s.utf8.allSatisfy({
            $0 >= 0x20 && $0 < 0x7f && $0 != 0x26 && $0 != 0x3c && $0 != 0x3e && $0 != 0x22 && $0 != 0x27
        }) {
            return s
        }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in TerminalText.safe(s).unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    private static func header(_ r: Report) -> String {
        var h = "<header><h1>btlens report</h1><div class=\"file\">\(e(r.file))</div>\n<div class=\"cards\">"
        let errors = r.diagnostics.filter { $0.severity == .error }.reduce(0) { $0 + $1.count }
        let warnings = r.diagnostics.filter { $0.severity == .warning }.reduce(0) { $0 + $1.count }
        var span = "-"
        if let f = r.firstTime, let l = r.lastTime { span = l.offset(from: f) + " s" }
        let frames = r.streams.reduce(0) { $0 + $1.sent + $1.received }
        // Each count over its noun, singular for 1: the card reads "1 error".
        func card(_ n: Int, _ singular: String, _ plural: String? = nil) -> (String, String) {
            (String(n), Plural.noun(n, singular, plural))
        }
        for (value, label) in [
            card(r.records, "record"), (span, "time span"), card(r.connections.count, "connection"),
            card(frames, "A5 frame or message", "A5 frames and messages"), card(errors, "error"),
            card(warnings, "warning"),
        ] {
            h += "<div class=\"card\"><b>\(e(value))</b><span>\(label)</span></div>"
        }
        h += "</div>"
        if r.redacted { h += "<p class=\"note\">Redacted: \(e(Redactor.what)).</p>" }
        return h + "</header>\n"
    }

    private static func diagnostics(_ r: Report) -> String {
        var h = "<section id=\"diagnostics\"><h2>Diagnostics</h2>\n"
        if let f = r.filter { h += "<p class=\"note\">Of those <code>--filter \(e(f))</code> selects.</p>\n" }
        guard !r.diagnostics.isEmpty else {
            let none = r.filter == nil ? "No diagnostics: every byte decoded as expected." : "None selected."
            return h + "<p class=\"empty\">\(none)</p></section>\n"
        }
        // A diagnostic's record links to its row when the timeline window kept it.
        var rowOf: [String: Int] = [:]
        for row in r.rows {
            if let id = row.diagnosticId, rowOf["\(id)#\(row.record)"] == nil {
                rowOf["\(id)#\(row.record)"] = row.index
            }
        }
        h +=
            "<table><thead><tr><th>severity</th><th>id</th><th>count</th><th>records</th><th>first</th></tr></thead><tbody>\n"
        for d in r.diagnostics {
            let links =
                d.records.prefix(30).map { rec -> String in
                    rowOf["\(d.id)#\(rec)"].map { "<a href=\"#r\($0)\">#\(rec)</a>" } ?? "#\(rec)"
                }.joined(separator: " ") + (d.count > 30 ? " …" : "")
            h +=
                "<tr><td class=\"sev-\(d.severity.name)\">\(d.severity.name)</td><td><code title=\"\(e(d.summary))\">\(e(d.id))</code></td>"
            h += "<td>\(d.count)</td><td class=\"mono\">\(links)</td><td>\(e(d.firstMessage))</td></tr>\n"
        }
        return h + "</tbody></table></section>\n"
    }

    private static func summary(_ r: Report) -> String {
        "<section id=\"summary\"><h2>Summary</h2>\n" + summaryCapture(r) + summaryConnections(r) + summaryDevices(r)
            + summaryStreamsAndCommands(r) + "</section>\n"
    }

    /// The capture itself: its format, time, records and how it was read.
    private static func summaryCapture(_ r: Report) -> String {
        var h = "<table>"
        h += "<tr><th>format</th><td>\(e(r.format)), link type \(e(r.linkType))</td></tr>"
        if let f = r.firstTime, let l = r.lastTime { h += "<tr><th>time</th><td>\(f.iso8601) … \(l.iso8601)</td></tr>" }
        h +=
            "<tr><th>records</th><td>\(r.records): "
            + e(r.recordsByKind.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        if r.truncatedRecords > 0 { h += "; \(r.truncatedRecords) cut short by the capture" }
        h += "</td></tr><tr><th>undecoded</th><td>\(Plural.of(r.undecodedBytes, "byte"))</td></tr>"
        for n in r.captureInformation { h += "<tr><th>capture</th><td>\(e(n))</td></tr>" }
        for a in r.appLogs { h += "<tr><th>app log</th><td>\(e(ReportLine(a).written(.text)))</td></tr>" }
        if let d = r.definitions { h += "<tr><th>dissectors</th><td>\(e(d.summary))</td></tr>" }
        if let f = r.filter {
            h +=
                "<tr><th>filter</th><td><code>\(e(f))</code>: the timeline, charts, commands and diagnostics are of what it selects</td></tr>"
        }
        return h + "</table>\n"
    }

    /// The first `connectionLimit` connections, each with its life; the others counted.
    private static func summaryConnections(_ r: Report) -> String {
        var h = "<h3>Connections</h3>"
        h += table(
            ["handle", "address", "name", "transport", "role", "opened", "closed", "reason", "life"],
            r.connections.prefix(connectionLimit).map { c in
                [
                    Hex.value(c.handle, width: 4), c.address ?? "unknown", c.name ?? "", c.transport, c.role,
                    c.opened.map { "#\($0) at \(c.openedAt ?? "?") s" } ?? (c.inferred ? "before the capture" : "-"),
                    c.closed.map { "#\($0) at \(c.closedAt ?? "?") s" } ?? "still open", c.reason ?? "",
                    c.steps.joined(separator: "; "),
                ]
            })
        if r.connections.count > connectionLimit {
            h +=
                "<p class=\"note\">\(Plural.of(r.connections.count - connectionLimit, "more connection")): the JSON report lists them all.</p>"
        }
        return h
    }

    /// What the other devices said of themselves: advertising, iAP2 identification, GATT services.
    private static func summaryDevices(_ r: Report) -> String {
        var h = ""
        if !r.advertisers.isEmpty {
            h += "<h3>Devices seen advertising</h3>"
            h += table(
                ["address", "name", "reports", "records", "RSSI dBm", "services"],
                r.advertisers.prefix(connectionLimit).map { a in
                    [
                        a.address, a.name ?? "", String(a.reports), "#\(a.firstRecord)–#\(a.lastRecord)",
                        AdvertisingSummary.rssi(a),
                        a.services.joined(separator: " "),
                    ]
                })
            if let more = AdvertisingSummary.more(r, shown: connectionLimit) {
                h += "<p class=\"note\">\(e(more))</p>"
            }
        }
        if !r.accessories.isEmpty {
            h += "<h3>iAP2 accessories</h3>"
            h += table(
                ["name", "model", "manufacturer", "serial", "firmware", "hardware", "EA protocols"],
                r.accessories.map { a in
                    [
                        a.name, a.model, a.manufacturer, a.serial, a.firmware, a.hardware,
                        a.protocols.map { "\($0.id)=\($0.name)" }.joined(separator: " "),
                    ]
                })
        }
        if !r.services.isEmpty {
            h += "<h3>GATT services and characteristics seen</h3>"
            h += table(
                ["server", "service", "characteristics"],
                r.services.map { s in
                    [
                        s.server, s.name.map { "\($0) (\(s.uuid))" } ?? s.uuid,
                        s.characteristics.map { "\(Hex.value($0.handle, width: 4)) \($0.name ?? $0.uuid)" }.joined(
                            separator: ", "),
                    ]
                })
        }
        return h
    }

    /// The A5 streams, and the commands dissectors paired with their answers.
    private static func summaryStreamsAndCommands(_ r: Report) -> String {
        var h = "<h3>A5 streams and messages</h3>"
        h += table(
            ["connection", "stream", "dissector", "sent", "received"],
            r.streams.map { s in
                [Hex.value(s.connection, width: 4), s.label, s.dissector ?? "-", String(s.sent), String(s.received)]
            })
        if !r.commands.isEmpty {
            h += "<h3>Commands</h3>"
            h += table(
                [
                    "dissector", "command", "sent", "received", "answered", "unanswered",
                    "latency ms (min median p95 max)",
                ],
                r.commands.map { c in
                    [
                        c.dissector, (c.name ?? "command") + " (" + Hex.value(c.command, width: 2) + ")",
                        String(c.sent), String(c.received),
                        String(c.answered), String(c.unanswered),
                        c.latency.map { $0.map { MessageValue.number($0.1) }.joined(separator: " ") } ?? "-",
                    ]
                })
        }
        return h
    }

    private static func table(_ head: [String], _ rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">None.</p>\n" }
        var h = "<table><thead><tr>" + head.map { "<th>\($0)</th>" }.joined() + "</tr></thead><tbody>"
        for row in rows { h += "<tr>" + row.map { "<td>\(e($0))</td>" }.joined() + "</tr>" }
        return h + "</tbody></table>\n"
    }

    /// A log line's summary: where it is written, its tag, level and message, and the record it shows.
    private static func logLine(_ l: Report.LogLine, _ rowOfRecord: [Int: Int]) -> String {
        var h = "<span class=\"src\">\(e(l.source)):\(l.line)</span> "
        if let t = l.tag { h += "[\(e(t))] " }
        if let v = l.level { h += e(v) + " " }
        h += e(l.message)
        if let m = l.matchesRecord {
            h += " = " + (rowOfRecord[m].map { "<a href=\"#r\($0)\">#\(m)</a>" } ?? "#\(m)")
        }
        return h
    }

    private static func timeline(_ r: Report, into h: inout String, _ out: (String) -> Void) {
        h += "<section id=\"timeline-section\"><h2>Timeline</h2>\n<p class=\"note\">\(e(r.window)).</p>\n"
        func options(_ id: String, _ label: String, _ values: [String], display: (String) -> String = { $0 }) -> String
        {
            "<label>\(label) <select id=\"f-\(id)\"><option value=\"\">all</option>"
                + values.map { "<option value=\"\(e($0))\">\(e(display($0)))</option>" }.joined() + "</select></label>"
        }
        // One pass: a row is unpacked each time it is read.
        var (layers, conns, streams, commands) = (Set<String>(), Set<String>(), Set<String>(), Set<String>())
        for row in r.rows {
            layers.insert(row.diagnosticId != nil ? "DIAG" : row.layer)
            if let c = row.connection { conns.insert(Hex.value(c, width: 4)) }
            if let s = row.stream { streams.insert(s) }
            if let c = row.command { commands.insert(c) }
        }
        h +=
            "<div class=\"filters\">" + options("layer", "layer", layers.sorted())
            + options("conn", "connection", conns.sorted())
        h += options("stream", "stream", streams.sorted()) + options("command", "command", commands.sorted())
        h += options("severity", "severity", ["note", "warning", "error"]) { $0 == "note" ? "diagnostics" : "≥ \($0)" }
        h += "<label>text <input id=\"f-text\" type=\"search\" placeholder=\"filter\"></label>"
        h +=
            "<button id=\"f-reset\" type=\"button\">reset</button> <span><span id=\"shown\">\(r.rows.count)</span> shown</span></div>\n"
        h +=
            "<table id=\"timeline\"><thead><tr><th>#</th><th>time</th><th></th><th>conn</th><th>layer</th><th>summary</th></tr></thead><tbody>\n"
        // A log line links to the row of the record whose bytes it shows, when the window kept it.
        var rowOfRecord: [Int: Int] = [:]
        if r.logLines > 0 {
            for row in r.rows where row.log == nil && row.diagnosticId == nil && rowOfRecord[row.record] == nil {
                rowOfRecord[row.record] = row.index
            }
        }
        for row in r.rows {
            let layer = row.diagnosticId != nil ? "DIAG" : row.layer
            var attrs = "id=\"r\(row.index)\" data-record=\"\(row.record)\" data-layer=\"\(e(layer))\""
            if let c = row.connection { attrs += " data-conn=\"\(Hex.value(c, width: 4))\"" }
            if let s = row.stream { attrs += " data-stream=\"\(e(s))\"" }
            if let c = row.command { attrs += " data-command=\"\(e(c))\"" }
            var cls = "layer-\(e(layer))"
            if let s = row.severity {
                attrs += " data-severity=\"\(s.name)\""
                cls += " diag-\(s.name)"
            }
            // An app log's line is marked by its line number, L12, as on the text timeline.
            let mark = row.log.map { "<a href=\"#r\(row.index)\" title=\"\(e($0.source)):\($0.line)\">L\($0.line)</a>" }
            h +=
                "<tr \(attrs) class=\"\(cls)\"><td>\(mark ?? "<a href=\"#r\(row.index)\">#\(row.record)</a>")</td><td>\(row.offset)</td><td>\(e(row.arrow))</td>"
            h += "<td>\(row.connection.map { Hex.value($0, width: 4) } ?? "-")</td><td>\(e(row.layer))</td><td>"
            if let l = row.log {
                h += logLine(l, rowOfRecord)
            } else if row.fields.isEmpty && row.hex == nil {
                h += e(row.text)
            } else {
                h += "<details><summary>\(e(row.text))</summary>"
                if !row.fields.isEmpty {
                    h +=
                        "<table>" + row.fields.map { "<tr><th>\(e($0.0))</th><td>\(e($0.1))</td></tr>" }.joined()
                        + "</table>"
                }
                if let hex = row.hex, !hex.isEmpty { h += "<div class=\"hex\">\(e(hex))</div>" }
                h += "</details>"
            }
            h += "</td></tr>\n"
            if h.utf8.count >= Report.piece {
                out(h)
                h = ""
            }
        }
        h += "</tbody></table></section>\n"
    }
}
