import BTLensCore
import BTLensDissect

/// How decoded messages look: `name=value` in text, an object in JSON. One place for both renderers.
enum MessageFormat {
    /// `preset=bassBoost level=85%`; nested groups in braces, lists in brackets.
    static func text(_ fields: [MessageField]) -> String {
        fields.map { "\($0.name)=\(text($0.value))" }.joined(separator: " ")
    }

    static func text(_ v: MessageValue) -> String {
        switch v {
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .measure(let d, let unit): return number(d) + (unit ?? "")
        case .string(let s): return "\"" + TerminalText.safe(s) + "\""
        case .bytes(let b): return b.isEmpty ? "\"\"" : Hex.string(b)
        case .enumerated(let name, let raw): return name.map(TerminalText.safe) ?? "\(raw)?"
        case .flags(let names, let unnamed):
            let all = names.map(TerminalText.safe) + (unnamed != 0 ? [Hex.value(unnamed, width: 2)] : [])
            return "[" + all.joined(separator: ",") + "]"
        case .group(let fields): return "{" + text(fields) + "}"
        case .list(let items): return "[" + items.map(text).joined(separator: " ") + "]"
        }
    }

    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    static func json(_ w: inout JSONWriter, _ fields: [MessageField]) {
        w.beginObject()
        for f in fields {
            w.key(f.name)
            json(&w, f.value)
        }
        w.endObject()
    }

    static func json(_ w: inout JSONWriter, _ v: MessageValue) {
        switch v {
        case .int(let i): w.int(i)
        case .uint(let u): u <= UInt64(Int64.max) ? w.int(Int64(u)) : w.number(Double(u))
        case .measure(let d, let unit):
            guard let unit else { return w.number(d) }
            w.beginObject(); w.key("value"); w.number(d); w.field("unit", unit); w.endObject()
        case .string(let s): w.string(s)
        case .bytes(let b): w.hex(b)
        case .enumerated(let name, let raw): if let name { w.string(name) } else { w.int(raw) }
        case .flags(let names, let unnamed):
            w.beginArray()
            for n in names { w.string(n) }
            if unnamed != 0 { w.string(Hex.value(unnamed, width: 2)) }
            w.endArray()
        case .group(let fields): json(&w, fields)
        case .list(let items):
            w.beginArray()
            for i in items { json(&w, i) }
            w.endArray()
        }
    }
}
