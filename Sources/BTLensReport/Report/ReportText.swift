import BTLensCore
import BTLensDissect

/// The report for a ticket: summary, diagnostics, and the timeline around each diagnostic (at most
/// `excerpts` of them, `context` rows each side). Markdown, or plain text.
public enum ReportText {
    public static let excerpts = 12
    public static let context = 3
    static let connectionLimit = 20

    public static func render(_ r: Report, markdown: Bool) -> String {
        var out: [String] = []
        func heading(_ s: String) { out += markdown ? ["", "## \(s)", ""] : ["", s, String(repeating: "=", count: s.count)] }
        func item(_ s: String) { out.append((markdown ? "- " : "  ") + s) }
        out.append(markdown ? "# btlens report: \(safe(r.file))" : "btlens report: \(safe(r.file))")
        out.append("")
        item("Format: \(r.format), link type \(r.linkType)")
        if let f = r.firstTime, let l = r.lastTime { item("Time: \(f.iso8601) … \(l.iso8601) (\(l.offset(from: f)) s)") }
        item("Records: \(r.records) (" + r.recordsByKind.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
             + (r.truncatedRecords > 0 ? ", \(r.truncatedRecords) cut short by the capture" : ""))
        for n in r.captureInformation { item(safe(n)) }
        if let d = r.definitions { item("Dissectors: \(safe(d.summary))") }
        if r.redacted { item("Redacted: addresses, serial numbers and Wi-Fi credentials are placeholders") }
        for c in r.connections.prefix(connectionLimit) {
            let opened = c.opened.map { "#\($0)" } ?? (c.inferred ? "before the capture" : "?")
            let closed = c.closed.map { "#\($0)" } ?? "still open"
            item("Connection \(Hex.value(c.handle, width: 4)) \(c.address ?? "address unknown")\(c.name.map { " \"\(safe($0))\"" } ?? "") \(c.transport): \(opened) → \(closed)"
                 + (c.reason.map { " (\($0))" } ?? "") + c.steps.map { "; \($0)" }.joined())
        }
        if r.connections.count > connectionLimit { item("… \(r.connections.count - connectionLimit) more connections (the JSON report lists them all)") }
        for a in r.advertisers.prefix(connectionLimit) {
            item("Advertising: " + AdvertisingSummary.describe(a))
        }
        for a in r.accessories {
            item(safe("Accessory: \(a.name), \(a.model) by \(a.manufacturer), serial \(a.serial), firmware \(a.firmware); EA "
                      + a.protocols.map(\.name).joined(separator: ", ")))
        }
        for s in r.streams {
            item("Stream \(safe(s.label)) on \(Hex.value(s.connection, width: 4)): \(s.sent) sent, \(s.received) received"
                 + (s.dissector.map { " (\($0))" } ?? ""))
        }
        let total = r.diagnostics.reduce(0) { $0 + $1.count }
        heading("Diagnostics (\(total))")
        if r.diagnostics.isEmpty { out.append("None.") }
        if markdown && !r.diagnostics.isEmpty { out += ["| severity | id | count | records | first |", "|---|---|---|---|---|"] }
        for d in r.diagnostics {
            let records = d.records.prefix(10).map { "#\($0)" }.joined(separator: " ") + (d.count > 10 ? " …" : "")
            if markdown {
                out.append("| \(d.severity.name) | `\(d.id)` | \(d.count) | \(records) | \(cell(d.firstMessage)) |")
            } else {
                out.append("  \(d.severity.name.padding(8)) \(d.id.padding(32)) \(String(d.count).padding(6)) \(records)")
            }
        }
        let marked = r.rows.indices.filter { r.rows[$0].diagnosticId != nil }
        if !marked.isEmpty {
            heading("Around each diagnostic")
            var shown = 0
            var last = -1
            for i in marked where shown < excerpts && i > last {
                let range = max(last + 1, i - context) ... min(r.rows.count - 1, i + context)
                out.append(markdown ? "```" : "")
                for j in range { out.append(line(r.rows[j])) }
                out.append(markdown ? "```" : "")
                last = range.upperBound
                shown += 1
            }
            if marked.count > shown { out.append("(\(marked.count - shown) more diagnostics in the full timeline: btlens timeline or the HTML report)") }
        }
        out.append("")
        out.append("Timeline: \(r.window).")
        return out.joined(separator: "\n") + "\n"
    }

    static func line(_ row: Report.Row) -> String {
        let conn = row.connection.map { Hex.value($0, width: 4) } ?? "     -"
        return "#\(row.record)".padding(8) + " " + row.offset + " " + row.arrow + " " + conn + " " + row.layer.padding(5) + " " + safe(row.text)
    }

    private static func cell(_ s: String) -> String { safe(s).replacingOccurrences(of: "|", with: "\\|") }
    private static func safe(_ s: String) -> String { TerminalText.safe(s) }
}

extension String {
    /// Padded with spaces to `n` characters (longer strings stay as they are): table columns.
    public func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
