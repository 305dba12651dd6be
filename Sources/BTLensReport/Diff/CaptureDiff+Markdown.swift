import BTLensCore

extension CaptureDiff {
    /// The Markdown form, short enough for a ticket: tables of what changed.
    public var markdown: String {
        var lines = [
            "### btlens diff", "", "- before: `\(Self.describe(before))`", "- after: `\(Self.describe(after))`", "",
        ]
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
                let mark = s.start + i == s.index ? "**" : ""
                lines.append("| \(mark)\(Self.cell(b))\(mark) | \(mark)\(Self.cell(a))\(mark) |")
            }
            lines.append("")
        }
        let causes = regressions
        if !causes.isEmpty { lines += ["Regressions:", ""] + causes.map { "- " + Self.cell($0) } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text in a table cell: pipes escaped, backquotes and line breaks dropped.
    static func cell(_ s: String) -> String {
        s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "`", with: "'")
    }
}
