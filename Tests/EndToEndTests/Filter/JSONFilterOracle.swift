import Foundation

/// A second reading of the display filter language, written apart from BTLensFilter and over the
/// JSON a timeline printed rather than the events: what `--filter` selects must be exactly the
/// lines this selects (`JSONLFilterTests`).
enum JSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: Decoder) throws {
        if var a = try? decoder.unkeyedContainer() {
            var items: [JSON] = []
            while !a.isAtEnd { items.append(try a.decode(JSON.self)) }
            self = .array(items)
            return
        }
        if let o = try? decoder.container(keyedBy: Key.self) {
            var d: [String: JSON] = [:]
            for k in o.allKeys { d[k.stringValue] = try o.decode(JSON.self, forKey: k) }
            self = .object(d)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

struct JSONFilterOracle {
    /// Keys whose strings are hex bytes.
    static let byteKeys: Set<String> = ["payload", "value", "bytes", "attribute_value", "response", "signature"]
    static let families = ["hci", "gatt", "l2cap", "iap2", "avdtp"]
    static let types: Set<String> = [
        "note", "hci.command", "hci.event", "connection", "acl", "l2cap", "l2cap.signaling", "rfcomm", "sdp", "iap2",
        "iap2.control", "iap2.identification", "att", "gatt.long_read", "gatt.long_write",
        "gatt.long_write_cancelled", "undecoded", "a5", "message", "diagnostic", "smp", "avdtp", "avdtp.media",
        "avrcp", "hfp",
    ]

    indirect enum Expr {
        case and(Expr, Expr)
        case or(Expr, Expr)
        case not(Expr)
        case bare(String)
        case test(String, String, [Value])  // field, operator, values (two for a range)
    }

    struct Value {
        var text: String
        var quoted: Bool
    }

    let expr: Expr
    /// The traffic's first line's time, in microseconds: where `reltime` counts from.
    var origin: Double = 0

    init(_ s: String) {
        var tokens: [String] = []
        var quotedTokens: Set<Int> = []
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == " " {
                i = s.index(after: i)
            } else if c == "\"" {
                var j = s.index(after: i)
                var text = ""
                while s[j] != "\"" {
                    if s[j] == "\\" { j = s.index(after: j) }
                    text.append(s[j])
                    j = s.index(after: j)
                }
                quotedTokens.insert(tokens.count)
                tokens.append(text)
                i = s.index(after: j)
            } else if "(){},".contains(c) {
                tokens.append(String(c))
                i = s.index(after: i)
            } else if let op = ["==", "!=", "<=", ">=", "&&", "||", "..", "<", ">", "!"].first(where: {
                s[i...].hasPrefix($0)
            }) {
                tokens.append(op)
                i = s.index(i, offsetBy: op.count)
            } else {
                var j = i
                while j < s.endIndex, !" (){},<>=!\"&|".contains(s[j]), !s[j...].hasPrefix("..") {
                    j = s.index(after: j)
                }
                tokens.append(String(s[i..<j]))
                i = j
            }
        }
        var p = 0
        func peek() -> String? { p < tokens.count ? tokens[p] : nil }
        func value() -> Value {
            defer { p += 1 }
            return Value(text: tokens[p], quoted: quotedTokens.contains(p))
        }
        func primary() -> Expr {
            let t = tokens[p]
            p += 1
            if t == "!" || t == "not" { return .not(primary()) }
            if t == "(" {
                let e = or()
                p += 1
                return e
            }
            guard let op = peek(), ["==", "!=", "<", "<=", ">", ">=", "contains", "matches", "in"].contains(op) else {
                return .bare(t)
            }
            p += 1
            guard op == "in" else { return .test(t, op, [value()]) }
            var members: [Expr] = []
            func member() {
                let low = value()
                if peek() == ".." {
                    p += 1
                    members.append(.test(t, "range", [low, value()]))
                } else {
                    members.append(.test(t, "==", [low]))
                }
            }
            if peek() == "{" {
                p += 1
                while peek() != "}" {
                    if peek() == "," { p += 1 } else { member() }
                }
                p += 1
            } else {
                member()
            }
            return members.dropFirst().reduce(members[0]) { .or($0, $1) }
        }
        func and() -> Expr {
            var e = primary()
            while peek() == "&&" || peek() == "and" {
                p += 1
                e = .and(e, primary())
            }
            return e
        }
        func or() -> Expr {
            var e = and()
            while peek() == "||" || peek() == "or" {
                p += 1
                e = .or(e, and())
            }
            return e
        }
        expr = or()
    }

    func selects(_ line: [String: JSON]) -> Bool { eval(expr, line) }

    private func eval(_ e: Expr, _ line: [String: JSON]) -> Bool {
        switch e {
        case .and(let a, let b): return eval(a, line) && eval(b, line)
        case .or(let a, let b): return eval(a, line) || eval(b, line)
        case .not(let a): return !eval(a, line)
        case .bare(let name):
            guard case .string(let type)? = line["type"] else { return false }
            if Self.types.contains(name) || Self.families.contains(name) {
                return type == name || type.hasPrefix(name + ".")
            }
            return !values(name, line).isEmpty
        case .test(let field, let op, let operands):
            let found = values(field, line)
            guard !found.isEmpty else { return false }
            if op == "!=" { return !found.contains { test($0, field, "==", operands) } }
            return found.contains { test($0, field, op, operands) }
        }
    }

    /// The values under a dotted name, through arrays; none when absent or null.
    private func values(_ name: String, _ line: [String: JSON]) -> [JSON] {
        if name == "reltime", let t = time(line["time"]) { return [.number((t - origin) / 1_000_000)] }
        var current: [JSON] = [.object(line)]
        for part in name.split(separator: ".") {
            current = current.flatMap { v -> [JSON] in
                guard case .object(let o) = v, let next = o[String(part)] else { return [] }
                if case .array(let items) = next { return items }
                return [next]
            }
        }
        return current.filter { $0 != .null }
    }

    private func time(_ v: JSON?) -> Double? {
        guard case .string(let s)? = v else { return nil }
        return Self.parseTime(s)
    }

    /// ISO 8601 in UTC to microseconds, by Foundation (the formatters are made once: each costs more
    /// than the parse).
    static func parseTime(_ s: String) -> Double? {
        let text = s.hasSuffix("Z") ? s : s + "Z"
        let d = fractional.date(from: text) ?? whole.date(from: text)
        return d.map { ($0.timeIntervalSince1970 * 1_000_000).rounded() }
    }
    nonisolated(unsafe) private static let fractional = formatter([.withInternetDateTime, .withFractionalSeconds])
    nonisolated(unsafe) private static let whole = formatter([.withInternetDateTime])
    private static func formatter(_ options: ISO8601DateFormatter.Options) -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = options
        return f
    }

    private func test(_ v: JSON, _ field: String, _ op: String, _ operands: [Value]) -> Bool {
        if op == "range" {
            return test(v, field, ">=", [operands[0]]) && test(v, field, "<=", [operands[1]])
        }
        let o = operands[0]
        let last = String(field.split(separator: ".").last ?? "")
        switch v {
        case .number(let n):
            guard field != "time", field != "severity", let x = number(o) else { return false }
            return order(n < x ? -1 : n == x ? 0 : 1, op)
        case .string(let s):
            if field == "time" {
                guard let t = Self.parseTime(s), let x = Self.parseTime(o.text) else { return false }
                return order(t < x ? -1 : t == x ? 0 : 1, op)
            }
            if field == "severity" {
                let ranks = ["note", "warning", "error"]
                guard let a = ranks.firstIndex(of: s), let b = ranks.firstIndex(of: o.text) else { return false }
                return order(a < b ? -1 : a == b ? 0 : 1, op)
            }
            if Self.byteKeys.contains(last) {
                guard let hex = hexText(o.text) else { return false }
                switch op {
                case "contains":
                    return stride(from: 0, through: s.count - hex.count, by: 2).contains { i in
                        Array(s.utf8)[i..<i + hex.count].elementsEqual(hex.utf8)
                    }
                case "matches": return s.range(of: o.text, options: .regularExpression) != nil
                default: return order(s == hex ? 0 : s < hex ? -1 : 1, op)
                }
            }
            switch op {
            case "contains": return o.text.isEmpty || s.contains(o.text)
            case "matches": return s.range(of: o.text, options: .regularExpression) != nil
            default:
                return order(s == o.text ? 0 : Array(s.utf8).lexicographicallyPrecedes(Array(o.text.utf8)) ? -1 : 1, op)
            }
        case .bool(let b):
            guard !o.quoted, o.text == "true" || o.text == "false" else { return false }
            let x = o.text == "true"
            return order(b == x ? 0 : b ? 1 : -1, op)
        default: return false
        }
    }

    private func number(_ o: Value) -> Double? {
        guard !o.quoted else { return nil }
        if o.text.hasPrefix("0x") { return Int(o.text.dropFirst(2), radix: 16).map(Double.init) }
        return Double(o.text)
    }

    /// `a5:01:20` or `a50120` as lowercase hex text without separators.
    private func hexText(_ s: String) -> String? {
        let t = s.replacingOccurrences(of: ":", with: "").lowercased()
        guard t.count % 2 == 0, t.allSatisfy(\.isHexDigit) else { return nil }
        return t
    }

    private func order(_ o: Int, _ op: String) -> Bool {
        switch op {
        case "==": return o == 0
        case "<": return o < 0
        case "<=": return o <= 0
        case ">": return o > 0
        case ">=": return o >= 0
        default: return false
        }
    }
}
