import BTLensCore
import BTLensDissect

/// How decoded messages look: `name=value` in text (`MessageValue.description`), an object in JSON.
enum MessageFormat {
    /// `preset=bassBoost level=85%`, with control characters from the capture escaped.
    static func text(_ fields: [MessageField]) -> String { TerminalText.safe(MessageField.describe(fields)) }

    static func json(_ w: inout JSONWriter, _ fields: [MessageField]) {
        w.beginObject()
        for f in fields {
            w.key(named: f.name)
            json(&w, f.value)
        }
        w.endObject()
    }

    static func json(_ w: inout JSONWriter, _ v: MessageValue) {
        switch v {
        case .int(let i): w.int(i)
        case .uint(let u): w.int(u)
        case .measure(let d, let unit):
            guard let unit else { return w.number(d) }
            w.beginObject()
            w.key("value")
            w.number(d)
            w.field("unit", unit)
            w.endObject()
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
