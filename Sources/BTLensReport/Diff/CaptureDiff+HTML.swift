import BTLensCore

extension CaptureDiff {
    /// A self-contained page in the report's style: both sides side by side, a table per part.
    public func html(generator: String) -> String {
        let e = ReportHTML.e
        var h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        h += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(ReportHTMLAssets.contentSecurityPolicy)\">\n"
        h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        h += "<title>btlens diff: \(e(before.file)) → \(e(after.file))</title>\n"
        h += "<style>\(ReportHTMLAssets.css)</style>"
        h += "</head>\n<body>\n<header><h1>btlens diff</h1>\n"
        h +=
            "<div class=\"cards\"><div class=\"card\"><span>before</span><b class=\"file\">\(e(Self.describe(before)))</b></div>"
        h +=
            "<div class=\"card\"><span>after</span><b class=\"file\">\(e(Self.describe(after)))</b></div></div>\n"
        h += Self.setting(before, after).map { "<p class=\"note\">\(e($0.0)): \(e($0.1))</p>" }.joined() + "</header>\n"
        if isEmpty { h += "<p class=\"empty\">No differences.</p>\n" }
        let causes = regressions
        if !causes.isEmpty {
            h += "<h2 id=\"regressions\">Regressions</h2>\n<ul>"
            h += causes.map { "<li class=\"sev-warning\">\(e($0))</li>" }.joined()
            h += "</ul>\n"
        }
        if !commands.isEmpty {
            h += table(
                "Commands", ["command", "before", "after", "latency"],
                commands.map { c in
                    [
                        e(c.label), e(Self.counts(c.before)), e(Self.counts(c.after)),
                        e(
                            c.latencyChange.map {
                                "\($0.change > 0 ? "rose" : "fell") by \(Self.ms(abs($0.change))) ms"
                            } ?? ""),
                    ]
                })
        }
        if !diagnostics.isEmpty {
            h += table(
                "Diagnostics", ["diagnostic", "before", "after", "first before", "first after"],
                diagnostics.map { d in
                    [
                        "<span class=\"sev-\(d.severity.name)\">\(e(d.id))</span>", "\(d.before)", "\(d.after)",
                        Self.record(d.firstRecordBefore), Self.record(d.firstRecordAfter),
                    ]
                })
        }
        for (title, list) in [("Connections", connections), ("GATT database", gatt), ("Identity", identity)]
        where !list.isEmpty {
            h += table(
                title, [["Connections": "peer", "GATT database": "server"][title] ?? "", "what", "before", "after"],
                list.map { [e($0.scope), e($0.name), e(Self.value($0.before)), e(Self.value($0.after))] })
        }
        if let s = sequence {
            let rows = (0..<max(s.before.count, s.after.count)).map { i -> [String] in
                let mark = s.start + i == s.index ? "▶" : ""
                return [
                    mark, i < s.before.count ? e(Self.step(s.before[i])) : "",
                    i < s.after.count ? e(Self.step(s.after[i])) : "",
                ]
            }
            h += table(
                "Command sequence: the first difference is at step \(s.index + 1)", ["", "before", "after"], rows)
        }
        h += "<footer><p class=\"note\">\(e(generator)). Record numbers are Wireshark's frame numbers.</p></footer>\n"
        return h + "</body></html>\n"
    }

    private func table(_ title: String, _ heads: [String], _ rows: [[String]]) -> String {
        var h = "<h2>\(ReportHTML.e(title))</h2>\n<table><tr>" + heads.map { "<th>\($0)</th>" }.joined() + "</tr>\n"
        for r in rows { h += "<tr>" + r.map { "<td>\($0)</td>" }.joined() + "</tr>\n" }
        return h + "</table>\n"
    }

    /// `sent 3, answered 3, median 2.5 ms`, or `—` for a side without the command.
    static func counts(_ c: CaptureSummary.Command?) -> String {
        guard let c else { return "—" }
        var parts: [String] = []
        for (what, n) in [
            ("sent", c.sent), ("received", c.received), ("answered", c.answered), ("unanswered", c.unanswered),
        ]
        where n > 0 {
            parts.append("\(what) \(n)")
        }
        if let l = c.latency { parts.append("median \(ms(l.median)) ms, p95 \(ms(l.p95)) ms") }
        return parts.joined(separator: ", ")
    }
}
