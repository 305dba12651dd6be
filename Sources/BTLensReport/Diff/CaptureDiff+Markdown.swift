import BTLensCore

extension CaptureDiff {
    /// The Markdown form, short enough for a ticket: tables of what changed.
    public var markdown: String {
        var lines = [
            "### btlens diff", "", "- before: \(Self.cell(Self.describe(before)))",
            "- after: \(Self.cell(Self.describe(after)))",
        ]
        lines += Self.setting(before, after).map { "- \($0.0): \(Self.cell($0.1))" }
        lines.append("")
        if isEmpty { return (lines + ["No differences."]).joined(separator: "\n") + "\n" }
        if !commands.isEmpty {
            lines += ["| command | change |", "|---|---|"]
            for c in commands {
                lines.append(
                    "| \(Self.cell(c.label)) | \(Self.cell(String(Self.describe(c).dropFirst(c.label.count + 2)))) |")
            }
            lines.append("")
        }
        if !diagnostics.isEmpty {
            lines += ["| diagnostic | before | after | first before | first after |", "|---|---:|---:|---|---|"]
            for d in diagnostics {
                lines.append(
                    "| `\(d.id)` (\(d.severity.name)) | \(d.before) | \(d.after) | \(Self.record(d.firstRecordBefore)) | \(Self.record(d.firstRecordAfter)) |"
                )
            }
            lines.append("")
        }
        let changes = connections + gatt + identity
        if !changes.isEmpty {
            lines += ["| what | before | after |", "|---|---|---|"]
            for c in changes {
                let what = c.scope.isEmpty ? c.name : "\(c.scope) \(c.name)"
                lines.append(
                    "| \(Self.cell(what)) | \(Self.cell(Self.value(c.before))) | \(Self.cell(Self.value(c.after))) |")
            }
            lines.append("")
        }
        if let s = sequence {
            lines += [
                "Command sequence: the first difference is at step \(s.index + 1).", "", "| before | after |",
                "|---|---|",
            ]
            for i in 0..<max(s.before.count, s.after.count) {
                let b = i < s.before.count ? Self.step(s.before[i]) : ""
                let a = i < s.after.count ? Self.step(s.after[i]) : ""
                let bold = { (t: String) in
                    t.isEmpty || s.start + i != s.index ? Self.cell(t) : "**\(Self.cell(t))**"
                }
                lines.append("| \(bold(b)) | \(bold(a)) |")
            }
            lines.append("")
        }
        let causes = regressions
        if !causes.isEmpty { lines += ["Regressions:", ""] + causes.map { "- " + Self.cell($0) } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text from a capture in Markdown, escaped as the Markdown report escapes it: never markup,
    /// a link, a mention or math.
    static func cell(_ s: String) -> String { ReportLine.markdown(s) }
}
