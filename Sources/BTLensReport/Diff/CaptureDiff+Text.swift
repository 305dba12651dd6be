import BTLensCore
import BTLensDissect

extension CaptureDiff {
    /// The terminal form: a heading per part, a line per change, nothing for what did not change.
    public var text: String {
        var lines = ["before: \(Self.describe(before))", "after:  \(Self.describe(after))"]
        if isEmpty { return (lines + ["no differences"]).joined(separator: "\n") + "\n" }
        if !commands.isEmpty {
            lines.append("\nCommands")
            for c in commands { lines.append("  " + Self.describe(c)) }
        }
        if !diagnostics.isEmpty {
            lines.append("\nDiagnostics")
            for d in diagnostics {
                let first = "first at \(Self.record(d.firstRecordBefore)) → \(Self.record(d.firstRecordAfter))"
                let tag = d.before == 0 ? " [new]" : d.after == 0 ? " [gone]" : ""
                lines.append("  \(d.id) (\(d.severity.name)): \(d.before) → \(d.after), \(first)\(tag)")
            }
        }
        if !connections.isEmpty {
            lines.append("\nConnections")
            for c in connections {
                lines.append("  \(c.scope): \(c.name) \(Self.value(c.before)) → \(Self.value(c.after))")
            }
        }
        if !gatt.isEmpty {
            lines.append("\nGATT database")
            for c in gatt { lines.append("  \(c.scope): \(c.name): \(Self.value(c.before)) → \(Self.value(c.after))") }
        }
        if !identity.isEmpty {
            lines.append("\nIdentity")
            for c in identity { lines.append("  \(c.name): \(Self.value(c.before)) → \(Self.value(c.after))") }
        }
        if let s = sequence {
            lines.append("\nCommand sequence: the first difference is at step \(s.index + 1)")
            for i in 0..<max(s.before.count, s.after.count) {
                let mark = s.start + i == s.index ? "*" : " "
                let b = i < s.before.count ? Self.step(s.before[i]) : ""
                let a = i < s.after.count ? Self.step(s.after[i]) : ""
                let line = "  \(mark) \(b.padding(toLength: 48, withPad: " ", startingAt: 0)) \(a)"
                lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
            }
        }
        let causes = regressions
        if !causes.isEmpty { lines += ["\nRegressions"] + causes.map { "  " + $0 } }
        return lines.joined(separator: "\n") + "\n"
    }

    static func describe(_ s: CaptureSummary) -> String {
        var span = ""
        if let a = s.firstTime, let b = s.lastTime { span = ", \(b.offset(from: a)) s" }
        return "\(s.file) (\(s.records) records\(span))"
    }

    static func describe(_ c: CommandRow) -> String {
        let b = c.before
        let a = c.after
        var parts: [String] = []
        for (what, kp) in [
            ("sent", \CaptureSummary.Command.sent), ("received", \.received), ("answered", \.answered),
            ("unanswered", \.unanswered),
        ] {
            let (x, y) = (b?[keyPath: kp] ?? 0, a?[keyPath: kp] ?? 0)
            if x != 0 || y != 0 { parts.append(x == y ? "\(what) \(x)" : "\(what) \(x) → \(y)") }
        }
        if let lb = b?.latency, let la = a?.latency {
            parts.append("latency median \(ms(lb.median)) → \(ms(la.median)) ms, p95 \(ms(lb.p95)) → \(ms(la.p95)) ms")
        }
        if let change = c.latencyChange {
            parts.append(
                "\(change.change > 0 ? "rose" : "fell") by more than the spread (\(ms(change.spread)) ms)")
        }
        let tag = b == nil ? " [new]" : a == nil ? " [gone]" : ""
        return "\(c.label): " + parts.joined(separator: ", ") + tag
    }

    static func ms(_ v: Double) -> String { MessageValue.number((v * 1000).rounded() / 1000) }

    static func record(_ r: Int?) -> String { r.map { "#\($0)" } ?? "—" }

    static func value(_ v: String?) -> String { v ?? "(none)" }

    static func step(_ s: CaptureSummary.Step) -> String {
        "#\(s.record) \(s.direction == .sent ? ">" : "<") \(s.dissector) \(s.label)"
    }
}
