import BTLensDissect

/// Resolves a filter's names: bare names to event types (or a field's presence), field names to
/// accessors, values to operands; everything a user can get wrong is said here, with its place.
struct Compiler {
    let expression: String

    func compile(_ s: Syntax) throws(FilterError) -> Node {
        switch s {
        case .and(let a, let b): return .and(try compile(a), try compile(b))
        case .or(let a, let b): return .or(try compile(a), try compile(b))
        case .not(let a): return .not(try compile(a))
        case .name(let n):
            let types = EventType.matching(n.text)
            if !types.isEmpty { return .types(types) }
            return .present(try field(n))
        case .compare(let f, let c, let v):
            let field = try field(f)
            return .compare(field, c, try operand(v, for: field, ordered: c != .equal && c != .notEqual))
        case .contains(let f, let v):
            let field = try field(f)
            try textual(field, "contains", f)
            let o = Operand(v)
            if field.isOnly({ $0 == .bytes }), o.bytes == nil {
                throw error("\(field.path) is bytes: write them in hex (a5:01:20 or a50120), not \"\(v.text)\"", v)
            }
            return .contains(field, o)
        case .matches(let f, let v):
            let field = try field(f)
            try textual(field, "matches", f)
            do {
                return .matches(field, try Pattern(v.text))
            } catch {
                throw self.error(
                    "not a regular expression: \(error.message) (at character \(error.offset) of the pattern)", v)
            }
        case .in(let f, let items):
            let field = try field(f)
            var members: [Node.Member] = []
            for item in items {
                switch item {
                case .value(let v): members.append(.value(try operand(v, for: field, ordered: false)))
                case .range(let low, let high):
                    let (from, to) = (
                        try operand(low, for: field, ordered: true), try operand(high, for: field, ordered: true)
                    )
                    if let a = from.number, let b = to.number, a > b {
                        throw error("the range \(low.text)..\(high.text) is empty: write the lower end first", low)
                    }
                    members.append(.range(from, to))
                }
            }
            return .within(field, members)
        }
    }

    /// `contains` and `matches` look into strings and bytes (`matches` into their hex), as in Wireshark.
    private func textual(_ field: Field, _ relation: String, _ f: Syntax.Located) throws(FilterError) {
        if FieldNames.numeric.contains(field.path) || field.isOnly({ $0 == .time || $0 == .boolean })
            || field.name == EventFields.severity.key
        {
            throw error("'\(relation)' looks into strings and bytes; \(field.path) is not one", f)
        }
    }

    private func error(_ message: String, _ at: Syntax.Located) -> FilterError {
        FilterError(message, in: expression, at: at.column, length: at.length)
    }

    /// A field the contract names; an event type or an unknown name is refused with the nearest name.
    private func field(_ n: Syntax.Located) throws(FilterError) -> Field {
        let name = n.text
        if FieldNames.known.contains(name) || ParameterNames.isAttributeDetail(name)
            || (name.hasPrefix("fields.") && name.count > 7)
        {
            return Field(name)
        }
        if !EventType.matching(name).isEmpty {
            throw error("\"\(name)\" is an event type, not a field: test it alone (\(name) && …)", n)
        }
        let hint = FieldNames.nearest(name).map { " (did you mean \"\($0)\"?)" } ?? ""
        throw error("unknown field \"\(name)\"\(hint)", n)
    }

    /// The value compared with `field`, checked against what the field holds where that is known.
    private func operand(_ v: Syntax.Located, for field: Field, ordered: Bool) throws(FilterError) -> Operand {
        if field.isOnly({ $0 == .time }) {
            guard let us = Operand.time(v.text) else {
                throw error(
                    "time is compared with ISO 8601 text such as 2023-11-14T22:13:20.5Z; for seconds since the first event use reltime",
                    v)
            }
            return Operand(text: v.text, int: us)
        }
        switch field.name {
        case EventFields.severity.key:
            guard let rank = ["note", "warning", "error"].firstIndex(of: v.text) else {
                throw error("severity is note, warning or error, not \"\(v.text)\"", v)
            }
            return Operand(text: v.text, int: Int64(rank))
        case EventFields.direction.key:
            guard ["sent", "received"].contains(v.text) else {
                throw error("direction is sent or received, not \"\(v.text)\"", v)
            }
            if ordered { throw error("direction has no order: compare it with == or !=", v) }
            return Operand(v)
        case _ where field.isOnly({ $0 == .uuid }):
            // Written as the JSONL writes it (`fff3`, lowercase), whatever the user's spelling:
            // FFF3 and 0xfff3 are the same UUID.
            var text = v.text.lowercased()
            if text.hasPrefix("0x") { text.removeFirst(2) }
            guard !text.isEmpty, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
                throw error("uuid is hex digits (fff3, or 128 bits with dashes), not \"\(v.text)\"", v)
            }
            return Operand(text: text)
        case _ where field.isOnly({ $0 == .boolean }):
            guard v.text == "true" || v.text == "false", !v.quoted else {
                throw error("\(field.path) is true or false, not \"\(v.text)\"", v)
            }
            return Operand(v)
        default:
            let o = Operand(v)
            if field.isOnly({ $0 == .bytes }), o.bytes == nil {
                throw error("\(field.path) is bytes: write them in hex (a5:01:20 or a50120), not \"\(v.text)\"", v)
            }
            if FieldNames.numeric.contains(field.path) && o.number == nil {
                throw error("\(field.path) is a number; \"\(v.text)\" is not one (write 32, 0x20 or 1.5)", v)
            }
            return o
        }
    }
}
