import BTLensDissect

/// A compiled filter: names resolved to event types and field accessors, values read once.
indirect enum Node {
    case and(Node, Node)
    case or(Node, Node)
    case not(Node)
    /// The event is of one of these types.
    case types(TypeSet)
    /// The event has the field (not `null`).
    case present(Field)
    case compare(Field, Comparison, Operand)
    case contains(Field, Operand)
    case matches(Field, Pattern)
    case within(Field, [Member])

    /// A member of a set: a value, or a range with both ends included.
    enum Member {
        case value(Operand)
        case range(Operand, Operand)
    }

    /// The event types this node can be true for, at most (`a5 && command == 0x20`: `a5`); nil when any.
    var possibleTypes: TypeSet? {
        switch self {
        case .types(let t): return t
        case .and(let a, let b):
            switch (a.possibleTypes, b.possibleTypes) {
            case (let x?, let y?): return TypeSet(bits: x.bits & y.bits)
            case (let x?, nil), (nil, let x?): return x
            case (nil, nil): return nil
            }
        case .or(let a, let b):
            guard let x = a.possibleTypes, let y = b.possibleTypes else { return nil }
            return TypeSet(bits: x.bits | y.bits)
        case .present(let f), .compare(let f, _, _), .contains(let f, _), .matches(let f, _), .within(let f, _):
            return f.possibleTypes
        case .not: return nil
        }
    }

    /// Whether the node reads `reltime`, which counts from the first event, whatever its type.
    var readsReltime: Bool { readsField { $0.name == "reltime" } }

    /// Whether the node reads bytes an event holds (a payload, a value, undecoded bytes, a decoded
    /// field, or a parameter, which may be bytes): the analyzer must then copy them out.
    var readsValues: Bool {
        readsField { f in f.isDeclared { [.bytes, .object, .array].contains($0) } || f.declarations.isEmpty }
    }

    /// Whether the node reads a frame's decoded fields (`fields.*`, `flags_names`), which costs a decoding.
    var readsDecodedFields: Bool {
        readsField { f in EventFields.decodedFields.contains { $0.key == f.name } }
    }

    /// Whether some field the node tests has a key `test` accepts.
    private func readsField(_ test: (Field) -> Bool) -> Bool {
        switch self {
        case .and(let a, let b), .or(let a, let b): return a.readsField(test) || b.readsField(test)
        case .not(let a): return a.readsField(test)
        case .types: return false
        case .present(let f), .compare(let f, _, _), .contains(let f, _), .matches(let f, _), .within(let f, _):
            return test(f)
        }
    }
}
