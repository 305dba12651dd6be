/// A line of the Markdown or text report. Its literal parts are the report's own; every value
/// interpolated into it may come from the capture and is escaped when the line is written, so this
/// is the one place where those reports are made safe:
/// - text, and Markdown code blocks (where nothing is markup): control characters, ANSI and bidi
///   as `\u{…}`, as on the terminal;
/// - Markdown: that, then HTML (`<`, `>`, `&`) as entities and Markdown's syntax behind a
///   backslash, so a value shows as text, never as markup, a link, a mention or math.
struct ReportLine: ExpressibleByStringInterpolation {
    enum Style { case text, markdown, code }

    fileprivate enum Part {
        case literal(String)
        case value(String)
        /// A code span in a Markdown table cell (a diagnostic id); plain in text.
        case code(String)
    }

    fileprivate var parts: [Part]

    init(stringLiteral s: String) { parts = [.literal(s)] }
    init(stringInterpolation i: Interpolation) { parts = i.parts }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []
        init(literalCapacity: Int, interpolationCount: Int) {}
        mutating func appendLiteral(_ s: String) { parts.append(.literal(s)) }
        mutating func appendInterpolation(_ v: some CustomStringConvertible) { parts.append(.value(v.description)) }
        /// A line inside a line keeps its literals literal.
        mutating func appendInterpolation(_ l: ReportLine) { parts += l.parts }
        mutating func appendInterpolation(code v: String) { parts.append(.code(v)) }
    }

    static func + (a: ReportLine, b: ReportLine) -> ReportLine {
        var joined = a
        joined.parts += b.parts
        return joined
    }

    func written(_ style: Style) -> String {
        var out = ""
        for part in parts {
            switch (part, style) {
            case (.literal(let s), _): out += s
            case (.value(let s), .markdown): out += out.isEmpty ? Self.markdownLineStart(s) : Self.markdown(s)
            case (.code(let s), .markdown): out += Self.markdownCode(s)
            case (.value(let s), _), (.code(let s), _): out += TerminalText.safe(s)
            }
        }
        return out
    }

    /// Safe for the terminal, then HTML and Markdown syntax escaped (CommonMark lets any ASCII
    /// punctuation be escaped with a backslash). `:` of `://` and `.` of `www.` are escaped so that
    /// GitHub's extended autolinks do not make a link; `@` so that no one is mentioned; `$` so that
    /// no math is rendered.
    static func markdown(_ s: String) -> String {
        let safe = TerminalText.safe(s)
        let special: Set<UInt8> = Set("&<>\\`*_[]|~@$:.".utf8)
        guard safe.utf8.contains(where: special.contains) else { return safe }
        var out = ""
        let scalars = Array(safe.unicodeScalars)
        for (i, c) in scalars.enumerated() {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|", "~", "@", "$": out += "\\\(c)"
            case ":" where scalars[(i + 1)...].starts(with: ["/", "/"]):
                out += "\\:"
            case "." where i >= 3 && String(String.UnicodeScalarView(scalars[(i - 3)..<i])).lowercased() == "www":
                out += "\\."
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A value that begins a line (after a list marker) must not begin a block either: a heading
    /// (`#`), list (`-`, `+`, `1.`, `1)`), setext underline (`=`).
    static func markdownLineStart(_ s: String) -> String {
        let escaped = markdown(s)
        guard let first = escaped.unicodeScalars.first else { return escaped }
        if "#-+=".unicodeScalars.contains(first) { return "\\" + escaped }
        let digits = escaped.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, let next = escaped.dropFirst(digits.count).first, next == "." || next == ")" {
            return digits + "\\" + escaped.dropFirst(digits.count)
        }
        return escaped
    }

    /// A code span with a fence longer than any run of backticks in it, spaced when it begins or ends
    /// with one; `|` stays escaped because a table splits its cells before it reads code spans.
    static func markdownCode(_ s: String) -> String {
        let safe = TerminalText.safe(s).replacingOccurrences(of: "|", with: "\\|")
        var longest = 0
        var run = 0
        for c in safe.utf8 {
            run = c == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = safe.hasPrefix("`") || safe.hasSuffix("`") ? " " : ""
        return fence + pad + safe + pad + fence
    }
}
