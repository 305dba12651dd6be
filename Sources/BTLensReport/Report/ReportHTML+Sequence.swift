import BTLensCore
import BTLensDissect

/// The message sequence chart, inline SVG: phone and accessory lanes, and with `--app-log` a lane
/// on the left for the log lines that show bytes.
extension ReportHTML {
    /// One arrow: a message, or a run of alike ones (`records`, in order).
    struct Arrow {
        var message: Report.Message
        var records: [Int]
    }

    /// Messages in a row with the same direction, name and diagnostics, and no latency to tell
    /// them apart, as one arrow: a capture that repeats one command draws a few rows, not hundreds.
    static func arrows(_ messages: [Report.Message]) -> [Arrow] {
        var out: [Arrow] = []
        for m in messages {
            if let a = out.last?.message, m.log == nil, a.log == nil, m.latencyMs == nil, a.latencyMs == nil,
                m.sent == a.sent, m.label == a.label, m.diagnostics == a.diagnostics
            {
                out[out.count - 1].records.append(m.record)
            } else {
                out.append(Arrow(message: m, records: [m.record]))
            }
        }
        return out
    }

    /// Each arrow with its name, latency for a paired response, and a red mark where a diagnostic
    /// was raised on the same record. The lanes' names stay above the box the chart scrolls in, so
    /// a long capture leaves the charts and the timeline within reach.
    static func sequence(_ r: Report) -> String {
        var h = "<section id=\"sequence\"><h2>Message sequence</h2>\n"
        guard !r.messages.isEmpty else {
            return h + "<p class=\"empty\">No A5 frames or vendor messages in the timeline window.</p></section>\n"
        }
        let hasLog = r.messages.contains { $0.log != nil }
        let log = 60.0
        let phone = hasLog ? 380.0 : 170.0
        let accessory = hasLog ? 900.0 : 730.0
        let width = hasLog ? 1080 : 900
        let step = 26.0
        let top = 18.0
        let arrows = arrows(r.messages)
        let height = Int(top + step * Double(arrows.count))
        var lanes = [(phone, "Phone (app)"), (accessory, "Accessory")]
        if hasLog { lanes.insert((log, "App log"), at: 0) }
        h += "<svg viewBox=\"0 0 \(width) 24\" width=\"\(width)\" aria-hidden=\"true\">"
        for (x, name) in lanes {
            h += "<text x=\"\(x)\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">\(name)</text>"
        }
        h += "</svg>\n<div class=\"sequence-chart\">"
        h +=
            "<svg viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" role=\"img\" aria-label=\"message sequence chart\">"
        h +=
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
        h += "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker></defs>"
        for (x, _) in lanes {
            h += "<line x1=\"\(x)\" y1=\"0\" x2=\"\(x)\" y2=\"\(height)\" stroke=\"#d9dde5\" stroke-width=\"2\"/>"
        }
        // Where each air message is drawn, by record: a log line is joined to the one its bytes are.
        var yOf: [Int: Double] = [:]
        for (i, a) in arrows.enumerated() where a.message.log == nil {
            for record in a.records where yOf[record] == nil { yOf[record] = top + step * Double(i) }
        }
        for (i, a) in arrows.enumerated() {
            let m = a.message
            let y = top + step * Double(i)
            if let l = m.log {
                h += logEntry(l, m, y: y, log: log, phone: phone, joined: l.matchesRecord.flatMap { yOf[$0] })
                continue
            }
            let color = m.diagnostics.isEmpty ? "#57606a" : "#b3261e"
            let (x1, x2) = m.sent ? (phone, accessory) : (accessory, phone)
            var label = "#\(m.record) \(m.label)"
            if let last = a.records.last, a.records.count > 1 {
                label = "#\(m.record)–#\(last) \(m.label) ×\(a.records.count)"
            }
            if let l = m.latencyMs { label += " ← #\(m.responseTo ?? 0), \(MessageValue.number(l)) ms" }
            let ids = m.diagnostics.joined(separator: " ")
            let first = a.records.count > 1 ? " (the first of \(a.records.count))" : ""
            h +=
                "<a href=\"#r\(m.row)\"><title>\(e(m.detail))\(first)\(ids.isEmpty ? "" : " — " + e(m.diagnostics.joined(separator: ", ")))</title>"
            h +=
                "<line x1=\"\(x1)\" y1=\"\(y)\" x2=\"\(x2)\" y2=\"\(y)\" stroke=\"\(color)\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>"
            h +=
                "<text x=\"\((phone + accessory) / 2)\" y=\"\(y - 4)\" text-anchor=\"middle\">\(e(fit(label, accessory - phone - 24)))</text>"
            if !ids.isEmpty {
                h += "<circle cx=\"\(x2 + (m.sent ? 10 : -10))\" cy=\"\(y)\" r=\"5\" fill=\"#b3261e\"/>"
                // The ids beside the accessory, or left of the phone when no log's lane is there.
                let beside = m.sent || hasLog
                let x = beside ? accessory + 20 : phone - 20
                h +=
                    "<text x=\"\(x)\" y=\"\(y + 4)\"\(beside ? "" : " text-anchor=\"end\"") fill=\"#b3261e\">\(e(fit(ids, beside ? Double(width) - x - 4 : x - 4)))</text>"
            }
            h += "</a>"
        }
        h += "</svg></div>\n"
        let total = r.streams.reduce(0) { $0 + $1.sent + $1.received }
        let drawn = r.messages.filter { $0.log == nil }.count
        if total > drawn {
            h +=
                "<p class=\"note\">\(drawn) of \(total) frames drawn (those in the timeline window, at most \(drawn)).</p>"
        }
        return h + "</section>\n"
    }

    /// A log line on the app log's lane: a dot and its label, a dashed line under the label to the
    /// arrow of the message that carried its bytes (`joined`, that arrow's height), red when a diagnostic names it.
    private static func logEntry(
        _ l: Report.LogLine, _ m: Report.Message, y: Double, log: Double, phone: Double, joined: Double?
    ) -> String {
        let color = m.diagnostics.isEmpty ? "#8250df" : "#b3261e"
        var h =
            "<a href=\"#r\(m.row)\"><title>\(e(l.source)):\(l.line) \(e(m.detail))\(m.diagnostics.isEmpty ? "" : " — " + e(m.diagnostics.joined(separator: ", ")))</title>"
        h += "<circle cx=\"\(log)\" cy=\"\(y)\" r=\"4\" fill=\"\(color)\"/>"
        h += "<text x=\"\(log + 8)\" y=\"\(y - 4)\" fill=\"\(color)\">\(e(fit(m.label, phone - log - 36)))</text>"
        if let j = joined {
            h +=
                "<path d=\"M\(log),\(y) H\(phone - 24) L\(phone),\(j)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"
        } else if !m.diagnostics.isEmpty {
            h +=
                "<text x=\"\(log + 8)\" y=\"\(y + 9)\" fill=\"#b3261e\">\(e(fit(m.diagnostics.joined(separator: " "), phone - log - 36)))</text>"
        }
        return h + "</a>"
    }

}
