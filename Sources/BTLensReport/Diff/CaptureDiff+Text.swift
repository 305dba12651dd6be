import BTLensCore
import BTLensDissect

extension CaptureDiff {
    /// The terminal form: a heading per part, a line per change, nothing for what did not change.
    /// Strings from the captures are printed with control characters escaped.
    public var text: String {
        var lines = ["before: \(Self.describe(before))", "after:  \(Self.describe(after))"]
        lines += Self.setting(before, after).map { "\($0.0): \($0.1)" }
        if isEmpty { lines.append("no differences") }
        if !commands.isEmpty {
            lines += ["", "Commands"] + commands.map { "  " + Self.describe($0) }
        }
        if !diagnostics.isEmpty {
            lines += ["", "Diagnostics"]
            for d in diagnostics {
                let first = "first at \(Self.record(d.firstRecordBefore)) → \(Self.record(d.firstRecordAfter))"
                let tag = d.before == 0 ? " [new]" : d.after == 0 ? " [gone]" : ""
                lines.append("  \(d.id) (\(d.severity.name)): \(d.before) → \(d.after), \(first)\(tag)")
            }
        }
        for (title, list, separator) in [
            ("Connections", connections, " "), ("GATT database", gatt, ": "), ("Identity", identity, ": "),
        ] where !list.isEmpty {
            lines += ["", title]
            for c in list {
                let scope = c.scope.isEmpty ? "" : "\(c.scope): "
                lines.append("  \(scope)\(c.name)\(separator)\(Self.value(c.before)) → \(Self.value(c.after))")
            }
        }
        if let s = sequence {
            lines += ["", "Command sequence: the first difference is at step \(s.index + 1)"]
            for i in 0..<max(s.before.count, s.after.count) {
                let mark = s.start + i == s.index ? "*" : " "
                let b = i < s.before.count ? Self.step(s.before[i]) : ""
                let a = i < s.after.count ? Self.step(s.after[i]) : ""
                let line = "  \(mark) \(b.padding(toLength: 48, withPad: " ", startingAt: 0)) \(a)"
                lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
            }
        }
        let causes = regressions
        if !causes.isEmpty { lines += ["", "Regressions"] + causes.map { "  " + $0 } }
        return lines.map(TerminalText.safe).joined(separator: "\n") + "\n"
    }

    static func describe(_ s: CaptureSummary) -> String {
        var span = ""
        if let a = s.firstTime, let b = s.lastTime { span = ", \(b.offset(from: a)) s" }
        return "\(s.file) (\(s.records) records\(span))"
    }

    /// What the sides were read with: definitions and a filter, said once when they agree.
    static func setting(_ b: CaptureSummary, _ a: CaptureSummary) -> [(String, String)] {
        var out: [(String, String)] = []
        let (db, da) = (b.definitions ?? "", a.definitions ?? "")
        out += db == da ? [("dissectors", db)] : [("dissectors before", db), ("dissectors after", da)]
        if let f = a.filter ?? b.filter { out.append(("filter", f)) }
        return out
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
            parts.append("\(change.change > 0 ? "rose" : "fell") by more than the spread (\(ms(change.spread)) ms)")
        }
        let tag = b == nil ? " [new]" : a == nil ? " [gone]" : ""
        return "\(c.label): " + parts.joined(separator: ", ") + tag
    }

    static func ms(_ v: Double) -> String { MessageValue.number((v * 1000).rounded() / 1000) }

    static func record(_ r: Int?) -> String { r.map { "#\($0)" } ?? "—" }

    static func value(_ v: String?) -> String { v ?? "(none)" }

    /// The timeline's arrows: < sent by the phone, > received.
    static func step(_ s: CaptureSummary.Step) -> String {
        "#\(s.record) \(s.direction == .sent ? "<" : ">") \(s.dissector) \(s.label)"
    }
}
