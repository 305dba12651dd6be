import BTLensCore
import BTLensDissect

/// The report for a ticket: summary, diagnostics, and the timeline around each diagnostic (at most
/// `excerpts` of them, `context` rows each side). Markdown, or plain text.
public enum ReportText {
    public static let excerpts = 12
    public static let context = 3
    static let connectionLimit = 20

    public static func render(_ r: Report, markdown: Bool) -> String {
        let style: ReportLine.Style = markdown ? .markdown : .text
        // With two logs or more, each log line names its file, as on the text timeline.
        let names = AppLogEntry.names(r.appLogs.map(\.source))
        var out: [String] = []
        let title: ReportLine = markdown ? "# btlens report: \(r.file)" : "btlens report: \(r.file)"
        out.append(title.written(style))
        out.append("")
        for l in captureItems(r) + connectionItems(r) { out.append((markdown ? "- " : "  ") + l.written(style)) }
        diagnostics(r, markdown: markdown, into: &out)
        excerpts(r, markdown: markdown, names: names, into: &out)
        if r.isRange, !r.rows.isEmpty {
            heading("Timeline", markdown: markdown, into: &out)
            out.append(markdown ? "```" : "")
            for row in r.rows { out.append(line(row, names: names).written(markdown ? .code : .text)) }
            out.append(markdown ? "```" : "")
        }
        out.append("")
        let window: ReportLine = "Timeline: \(timeline(r))."
        out.append(window.written(style))
        return out.joined(separator: "\n") + "\n"
    }

    /// What the text report holds of the timeline, in words: with `--from`/`--to` the rows the
    /// other formats hold (`Report.window`), otherwise only the excerpts around the diagnostics.
    public static func timeline(_ r: Report) -> String {
        if r.isRange { return r.window }
        let (ranges, marked) = excerptRanges(r)
        let shown = ranges.reduce(0) { $0 + $1.count }
        let covered = marked.filter { $0 <= (ranges.last?.upperBound ?? -1) }.count
        let all =
            Plural.of(r.events, "event")
            + (r.logLines > 1
                ? " (\(r.logLines) of them app log lines)" : r.logLines == 1 ? " (1 of them an app log line)" : "")
        let which =
            covered == 0
            ? "only those around a diagnostic, and there is none"
                + (r.diagnostics.isEmpty ? "" : " among the rows the timeline kept")
            : "up to \(context) on each side of "
                + (covered < marked.count ? "the first \(covered) diagnostics" : Plural.of(covered, "diagnostic"))
        let left = r.events - shown
        return "\(shown) of \(all): \(which)"
            + (left > 0 ? "; \(left) left out (btlens timeline shows them)" : "")
    }

    /// A section's heading: `## ` in Markdown, underlined in text.
    private static func heading(_ l: ReportLine, markdown: Bool, into out: inout [String]) {
        let s = l.written(markdown ? .markdown : .text)
        out += markdown ? ["", "## " + s, ""] : ["", s, String(repeating: "=", count: s.count)]
    }

    /// The summary's items on the capture itself: its format, time, records and how it was read.
    private static func captureItems(_ r: Report) -> [ReportLine] {
        var items: [ReportLine] = []
        items.append("Format: \(r.format), link type \(r.linkType)")
        if let f = r.firstTime, let l = r.lastTime {
            items.append("Time: \(f.iso8601) … \(l.iso8601) (\(l.offset(from: f)) s)")
        }
        items.append(
            "Records: \(r.records) (\(r.recordsByKind.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))"
                + (r.truncatedRecords > 0 ? ", \(r.truncatedRecords) cut short by the capture" : ""))
        for n in r.captureInformation { items.append("\(n)") }
        if let d = r.definitions { items.append("Dissectors: \(d.summary)") }
        if let f = r.filter {
            items.append("Filter: \(f) (the timeline, commands and diagnostics are of what it selects)")
        }
        if r.redacted { items.append("Redacted: \(Redactor.what)") }
        for a in r.appLogs { items.append(ReportLine(a)) }
        return items
    }

    /// The summary's items on the devices: connections, advertisers, iAP2 accessories and streams.
    private static func connectionItems(_ r: Report) -> [ReportLine] {
        var items: [ReportLine] = []
        for c in r.connections.prefix(connectionLimit) {
            let opened = c.opened.map { "#\($0)" } ?? (c.inferred ? "before the capture" : "?")
            let closed = c.closed.map { "#\($0)" } ?? "still open"
            let name: ReportLine = c.name.map { " \"\($0)\"" } ?? ""
            let reason: ReportLine = c.reason.map { " (\($0))" } ?? ""
            items.append(
                "Connection \(Hex.value(c.handle, width: 4)) \(c.address ?? "address unknown")\(name) \(c.transport): \(opened) → \(closed)"
                    + "\(reason)\(c.steps.map { "; " + $0 }.joined())")
        }
        if r.connections.count > connectionLimit {
            items.append(
                "… \(Plural.of(r.connections.count - connectionLimit, "more connection")) (the JSON report lists them all)"
            )
        }
        for a in r.advertisers.prefix(connectionLimit) {
            items.append("Advertising: \(AdvertisingSummary.describe(a))")
        }
        if let more = AdvertisingSummary.more(r, shown: connectionLimit) { items.append("\(more)") }
        for a in r.accessories {
            items.append(
                "Accessory: \(a.name), \(a.model) by \(a.manufacturer), serial \(a.serial), firmware \(a.firmware); EA "
                    + "\(a.protocols.map(\.name).joined(separator: ", "))")
        }
        for s in r.streams {
            let dissector: ReportLine = s.dissector.map { " (\($0))" } ?? ""
            items.append(
                "Stream \(s.label) on \(Hex.value(s.connection, width: 4)): \(s.sent) sent, \(s.received) received\(dissector)"
            )
        }
        return items
    }

    /// The diagnostics, one row per id: a table in Markdown, aligned columns in text.
    private static func diagnostics(_ r: Report, markdown: Bool, into out: inout [String]) {
        let style: ReportLine.Style = markdown ? .markdown : .text
        let total = r.diagnostics.reduce(0) { $0 + $1.count }
        heading(
            "Diagnostics (\(total))" + (r.filter.map { ", of those --filter '\($0)' selects" } ?? ""),
            markdown: markdown, into: &out)
        if r.diagnostics.isEmpty { out.append("None.") }
        if markdown && !r.diagnostics.isEmpty {
            out += ["| severity | id | count | records | first |", "|---|---|---|---|---|"]
        }
        for d in r.diagnostics {
            let records = d.records.prefix(10).map { "#\($0)" }.joined(separator: " ") + (d.count > 10 ? " …" : "")
            let row: ReportLine =
                markdown
                ? "| \(d.severity.name) | \(code: d.id) | \(d.count) | \(records) | \(d.firstMessage) |"
                : "  \(d.severity.name.padding(8)) \(d.id.padding(32)) \(String(d.count).padding(6)) \(records)"
            out.append(row.written(style))
        }
    }

    /// The timeline around each diagnostic: at most `excerpts` excerpts of `context` rows each side,
    /// an excerpt that would overlap the one before starting after it.
    private static func excerpts(_ r: Report, markdown: Bool, names: [String: String], into out: inout [String]) {
        let (ranges, marked) = excerptRanges(r)
        guard !marked.isEmpty else { return }
        heading("Around each diagnostic", markdown: markdown, into: &out)
        for range in ranges {
            out.append(markdown ? "```" : "")
            // Inside a fence nothing is markup; each line begins with `#record`, so none closes it.
            for j in range { out.append(line(r.rows[j], names: names).written(markdown ? .code : .text)) }
            out.append(markdown ? "```" : "")
        }
        // An excerpt may show several: those after the last excerpt are the ones left.
        let last = ranges.last?.upperBound ?? -1
        let left = marked.filter { $0 > last }.count
        if left > 0 {
            out.append(
                "(\(Plural.of(left, "more diagnostic")) in the full timeline: btlens timeline or the HTML report)")
        }
    }

    /// The rows of each excerpt, and the rows that are diagnostics.
    private static func excerptRanges(_ r: Report) -> (ranges: [ClosedRange<Int>], marked: [Int]) {
        let marked = r.rows.indices.filter { r.rows[$0].diagnosticId != nil }
        var ranges: [ClosedRange<Int>] = []
        var last = -1
        for i in marked where ranges.count < excerpts && i > last {
            let range = max(last + 1, i - context)...min(r.rows.count - 1, i + context)
            ranges.append(range)
            last = range.upperBound
        }
        return (ranges, marked)
    }

    /// A row as the text timeline writes it; with `names` (more than one log), a log's line begins
    /// with its log's name.
    static func line(_ row: Report.Row, names: [String: String] = [:]) -> ReportLine {
        let conn = row.connection.map { Hex.value($0, width: 4) } ?? "     -"
        // An app log's line is marked by its line number, as on the text timeline.
        let mark = row.log.map { "L\($0.line)" } ?? "#\(row.record)"
        let source = row.log.map { names.isEmpty ? "" : "\(names[$0.source] ?? $0.source): " } ?? ""
        return "\(mark.padding(8)) \(row.offset) \(row.arrow) \(conn) \(row.layer.padding(5)) \(source)\(row.text)"
    }
}

extension ReportLine {
    /// An app log's alignment in the summary: `App log x.txt: offset -3599997.000 ms (content, 10 lines
    /// matched), 13 lines in the timeline`.
    init(_ a: Report.LogAlignment) {
        self =
            "App log \(a.source): offset \(FieldValue.decimalText(a.offsetMicroseconds, scale: 3)) ms (\(a.method)\(a.method == "content" ? ", \(Plural.of(a.matched, "line")) matched" : "")), \(Plural.of(a.lines, "line")) in the timeline"
    }
}

extension String {
    /// Padded with spaces to `n` characters (longer strings stay as they are): table columns.
    public func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
