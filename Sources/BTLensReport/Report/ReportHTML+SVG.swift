import BTLensCore
import BTLensDissect

/// Inline SVG: the charts. No chart library, nothing fetched.
extension ReportHTML {
    static let palette = [
        "#0b6bcb", "#1a7f37", "#9a6700", "#8250df", "#b3261e", "#0a7ea4", "#bc4c00", "#57606a",
        "#4c2889", "#116329", "#953800", "#1b1f24",
    ]

    /// `s` cut to about `pixels` of an SVG label (11 px monospace, 6.6 px a character), ending in
    /// `…` when cut: a label that ran on would cover its neighbour. The element's title keeps it whole.
    static func fit(_ s: String, _ pixels: Double) -> String {
        let n = max(1, Int(pixels / 6.6))
        return s.count <= n ? s : String(s.prefix(n - 1)) + "…"
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
        // The axis' caption under its right end, then the legend, three to a row, each cut to its column.
        let height = Int(ht + 30 + 16 * Double((r.series.count + 2) / 3))
        var h = "<svg viewBox=\"0 0 900 \(height)\" width=\"900\" role=\"img\" aria-label=\"frames over time\">"
        h +=
            "<line x1=\"\(left)\" y1=\"\(ht)\" x2=\"\(left + w)\" y2=\"\(ht)\" stroke=\"#d9dde5\"/><text x=\"4\" y=\"14\">\(peak)</text><text x=\"4\" y=\"\(ht)\">0</text>"
        for (i, s) in r.series.enumerated() {
            let points = s.counts.prefix(used).enumerated().map { j, n in
                "\(Int(left + dx * (Double(j) + 0.5))),\(Int(ht - ht * 0.9 * Double(n) / Double(peak)))"
            }.joined(separator: " ")
            let color = palette[i % palette.count]
            h += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
            h +=
                "<text x=\"\(left + Double(i % 3) * 290)\" y=\"\(Int(ht + 34 + Double(i / 3) * 16))\" fill=\"\(color)\">■ \(e(fit(s.stream, 270)))</text>"
        }
        h +=
            "<text x=\"\(left + w)\" y=\"\(Int(ht + 14))\" text-anchor=\"end\">\(MessageValue.number(r.bucketSeconds * Double(min(used, buckets)))) s, \(MessageValue.number(r.bucketSeconds)) s per point</text>"
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
                "<text x=\"4\" y=\"\(Int(y + 4))\">\(e(fit((c.name ?? "command") + " (" + Hex.value(c.command, width: 2) + ")", left - 12)))</text>"
            h += "<line x1=\"\(x(lo))\" y1=\"\(y)\" x2=\"\(x(hi))\" y2=\"\(y)\" stroke=\"#57606a\"/>"
            h +=
                "<rect x=\"\(x(med))\" y=\"\(y - 6)\" width=\"\(max(2, x(p95) - x(med)))\" height=\"12\" fill=\"#0b6bcb\" opacity=\"0.7\">"
            h +=
                "<title>min \(MessageValue.number(lo)), median \(MessageValue.number(med)), p95 \(MessageValue.number(p95)), max \(MessageValue.number(hi)) ms; \(c.answered) answered</title></rect>"
        }
        return h + "</svg>\n"
    }
}
