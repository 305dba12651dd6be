import BTLensCore
import BTLensDissect

/// Inline SVG: the message sequence chart and the charts. No chart library, nothing fetched.
extension ReportHTML {
    static let palette = [
        "#0b6bcb", "#1a7f37", "#9a6700", "#8250df", "#b3261e", "#0a7ea4", "#bc4c00", "#57606a",
        "#4c2889", "#116329", "#953800", "#1b1f24",
    ]

    /// Phone and accessory lanes; each A5 frame or message an arrow with its name, latency for a
    /// paired response, and a red mark where a diagnostic was raised on the same record. With
    /// `--app-log`, a lane on the left for the log lines that show bytes, each joined to the arrow of
    /// the message that carried them when that is drawn.
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
        let top = 40.0
        let height = top + step * Double(r.messages.count) + 20
        h +=
            "<svg viewBox=\"0 0 \(width) \(Int(height))\" width=\"\(width)\" role=\"img\" aria-label=\"message sequence chart\">"
        h +=
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
        h += "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker></defs>"
        var lanes = [(phone, "Phone (app)"), (accessory, "Accessory")]
        if hasLog { lanes.insert((log, "App log"), at: 0) }
        for (x, name) in lanes {
            h += "<text x=\"\(x)\" y=\"20\" text-anchor=\"middle\" font-weight=\"bold\">\(name)</text>"
            h += "<line x1=\"\(x)\" y1=\"28\" x2=\"\(x)\" y2=\"\(Int(height))\" stroke=\"#d9dde5\" stroke-width=\"2\"/>"
        }
        // Where each air message is drawn, by record: a log line is joined to the one its bytes are.
        var yOf: [Int: Double] = [:]
        for (i, m) in r.messages.enumerated() where m.log == nil && yOf[m.record] == nil {
            yOf[m.record] = top + step * Double(i)
        }
        for (i, m) in r.messages.enumerated() {
            let y = top + step * Double(i)
            let color = m.diagnostics.isEmpty ? "#57606a" : "#b3261e"
            if let l = m.log {
                h += logEntry(l, m, y: y, log: log, phone: phone, joined: l.matchesRecord.flatMap { yOf[$0] })
                continue
            }
            let (x1, x2) = m.sent ? (phone, accessory) : (accessory, phone)
            var label = "#\(m.record) \(m.label)"
            if let l = m.latencyMs { label += " ← #\(m.responseTo ?? 0), \(MessageValue.number(l)) ms" }
            h +=
                "<a href=\"#r\(m.row)\"><title>\(e(m.detail))\(m.diagnostics.isEmpty ? "" : " — " + e(m.diagnostics.joined(separator: ", ")))</title>"
            h +=
                "<line x1=\"\(x1)\" y1=\"\(y)\" x2=\"\(x2)\" y2=\"\(y)\" stroke=\"\(color)\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>"
            h += "<text x=\"\((phone + accessory) / 2)\" y=\"\(y - 4)\" text-anchor=\"middle\">\(e(label))</text>"
            if !m.diagnostics.isEmpty {
                // The ids beside the accessory when the log's lane is on the left.
                h += "<circle cx=\"\(x2 + (m.sent ? 10 : -10))\" cy=\"\(y)\" r=\"5\" fill=\"#b3261e\"/>"
                h +=
                    "<text x=\"\(m.sent ? x2 + 20 : hasLog ? accessory + 20 : 10)\" y=\"\(y + 4)\" fill=\"#b3261e\">\(e(m.diagnostics.joined(separator: " ")))</text>"
            }
            h += "</a>"
        }
        h += "</svg>"
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
        h += "<text x=\"\(log + 8)\" y=\"\(y - 4)\" fill=\"\(color)\">\(e(m.label))</text>"
        if let j = joined {
            h +=
                "<path d=\"M\(log),\(y) H\(phone - 24) L\(phone),\(j)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"
        } else if !m.diagnostics.isEmpty {
            h +=
                "<text x=\"\(log + 8)\" y=\"\(y + 9)\" fill=\"#b3261e\">\(e(m.diagnostics.joined(separator: " ")))</text>"
        }
        return h + "</a>"
    }

    static func charts(_ r: Report) -> String {
        var h = "<section id=\"charts\"><h2>Charts</h2>\n<h3>Frames over time, per stream</h3>\n"
        h += framesOverTime(r)
        h += "<h3>Response latency per command (ms: min, median to p95 box, max)</h3>\n"
        h += latency(r)
        return h + "</section>\n"
    }

    private static func framesOverTime(_ r: Report) -> String {
        guard let peak = r.series.flatMap(\.counts).max(), peak > 0 else {
            return "<p class=\"empty\">No frames.</p>\n"
        }
        let w = 860.0
        let ht = 180.0
        let left = 40.0
        let buckets = r.series.first?.counts.count ?? 1
        // Only the buckets the capture reached are drawn.
        let used = max(1, (r.series.map { $0.counts.lastIndex { $0 > 0 } ?? 0 }.max() ?? 0) + 1)
        let dx = w / Double(min(used, buckets))
        var h = "<svg viewBox=\"0 0 900 \(Int(ht + 60))\" width=\"900\" role=\"img\" aria-label=\"frames over time\">"
        h +=
            "<line x1=\"\(left)\" y1=\"\(ht)\" x2=\"\(left + w)\" y2=\"\(ht)\" stroke=\"#d9dde5\"/><text x=\"4\" y=\"14\">\(peak)</text><text x=\"4\" y=\"\(ht)\">0</text>"
        for (i, s) in r.series.enumerated() {
            let points = s.counts.prefix(used).enumerated().map { j, n in
                "\(Int(left + dx * (Double(j) + 0.5))),\(Int(ht - ht * 0.9 * Double(n) / Double(peak)))"
            }.joined(separator: " ")
            let color = palette[i % palette.count]
            h += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
            h +=
                "<text x=\"\(left + Double(i % 3) * 290)\" y=\"\(Int(ht + 20 + Double(i / 3) * 14))\" fill=\"\(color)\">■ \(e(s.stream))</text>"
        }
        h +=
            "<text x=\"\(left + w)\" y=\"\(Int(ht + 12))\" text-anchor=\"end\">\(MessageValue.number(r.bucketSeconds * Double(min(used, buckets)))) s, \(MessageValue.number(r.bucketSeconds)) s per point</text>"
        return h + "</svg>\n"
    }

    private static func latency(_ r: Report) -> String {
        let rows = r.commands.compactMap { c in c.latency.map { (c, Dictionary($0, uniquingKeysWith: { a, _ in a })) } }
        guard let peak = rows.compactMap({ $0.1["max"] }).max(), peak > 0 else {
            return "<p class=\"empty\">No paired responses.</p>\n"
        }
        let left = 260.0
        let w = 600.0
        let step = 24.0
        var h =
            "<svg viewBox=\"0 0 900 \(Int(30 + step * Double(rows.count)))\" width=\"900\" role=\"img\" aria-label=\"latency per command\">"
        // A latency from a hostile time can be -9e15 ms beside a peak of 0.001 ms: Int() of that traps.
        // A bar is clamped to the chart (a negative latency starts at 0); its title says the numbers.
        func x(_ v: Double) -> Int { Int(min(max(left + w * v / peak, left), left + w)) }
        h +=
            "<text x=\"\(left)\" y=\"12\">0</text><text x=\"\(left + w)\" y=\"12\" text-anchor=\"end\">\(MessageValue.number(peak)) ms</text>"
        for (i, (c, l)) in rows.enumerated() {
            let y = 30 + step * Double(i)
            let (lo, med, p95, hi) = (l["min"] ?? 0, l["median"] ?? 0, l["p95"] ?? 0, l["max"] ?? 0)
            h +=
                "<text x=\"4\" y=\"\(Int(y + 4))\">\(e((c.name ?? "command") + " (" + Hex.value(c.command, width: 2) + ")"))</text>"
            h += "<line x1=\"\(x(lo))\" y1=\"\(y)\" x2=\"\(x(hi))\" y2=\"\(y)\" stroke=\"#57606a\"/>"
            h +=
                "<rect x=\"\(x(med))\" y=\"\(y - 6)\" width=\"\(max(2, x(p95) - x(med)))\" height=\"12\" fill=\"#0b6bcb\" opacity=\"0.7\">"
            h +=
                "<title>min \(MessageValue.number(lo)), median \(MessageValue.number(med)), p95 \(MessageValue.number(p95)), max \(MessageValue.number(hi)) ms; \(c.answered) answered</title></rect>"
        }
        return h + "</svg>\n"
    }
}
