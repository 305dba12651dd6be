/// The work a message's fields can ask for, worked out once over the type graph at load, so that a
/// few lines of nested types and repeats are refused instead of expanding to billions of values.
/// Named types are shared, so each group's figures are computed once (by the identity of its specs).
struct DefinitionCost {
    /// Values one message may produce (each field, group, list item and TLV item counts one): the
    /// definition's worst case at load, and where decoding stops (`a5.payload.items`).
    static let maxItems = 65_536
    /// Fields of the whole definition with every named type written out where it is used: what the
    /// walks over a definition (references, layouts, the Wireshark export) visit.
    static let maxExpandedFields = 262_144

    struct Figures {
        /// The most values one occurrence produces; a repeat of items that may take no bytes counts
        /// every repetition, one of items that take bytes counts one (the payload pays the rest).
        var items = 0
        /// Fields with named types written out, each once.
        var expanded = 0
        /// The fewest bytes one occurrence reads.
        var minBytes = 0
    }

    private var groups: [ObjectIdentifier: Figures] = [:]

    /// The figures of a `seq`, saturating at the bounds (so that the sums cannot overflow).
    mutating func figures(_ specs: [FieldSpec]) -> Figures {
        if let first = specs.first, let done = groups[ObjectIdentifier(first)] { return done }
        var total = Figures()
        for spec in specs {
            let f = figures(spec)
            total.items = Self.cap(total.items + f.items, Self.maxItems)
            total.expanded = Self.cap(total.expanded + f.expanded, Self.maxExpandedFields)
            total.minBytes = min(total.minBytes + f.minBytes, 1 << 32)
        }
        if let first = specs.first { groups[ObjectIdentifier(first)] = total }
        return total
    }

    private mutating func figures(_ spec: FieldSpec) -> Figures {
        var f = figures(spec.type)
        f.expanded = Self.cap(f.expanded + 1, Self.maxExpandedFields)
        switch spec.repeats {
        case nil: break
        case .count(let n):
            // A list of none still costs its field once.
            f.items = Self.cap(f.items * max(n, 1), Self.maxItems)
            f.minBytes = min(f.minBytes * n, 1 << 32)
        case .eos, .field:
            if f.minBytes == 0 { f.items = Self.cap(f.items * FieldDecoder.repeatLimit, Self.maxItems) }
            f.minBytes = 0
        }
        return f
    }

    private mutating func figures(_ type: FieldSpec.FieldType) -> Figures {
        switch type {
        case .integer(let width, _, _), .float(let width, _): return Figures(items: 1, minBytes: width)
        case .varint: return Figures(items: 1, minBytes: 1)
        case .bits: return Figures(items: 1)
        case .bytes(let size), .string(let size), .protobuf(let size), .protobufSchema(_, _, let size):
            return Figures(items: 1, minBytes: Self.fixed(size))
        case .stringZ(let size): return Figures(items: 1, minBytes: size.map(Self.fixed) ?? 0)
        case .group(let inner):
            var f = figures(inner)
            f.items = Self.cap(f.items + 1, Self.maxItems)
            return f
        case .switchOn(_, let cases, let fallback):
            return alternatives(Array(cases.values) + [fallback ?? .bytes(.eos)])
        case .tlv(let tlv, _):
            // Each item reads its tag and length, so the payload pays for the items.
            var f = alternatives(Array(tlv.values.values) + [tlv.fallback ?? .bytes(.eos)])
            f.items = Self.cap(f.items + 2, Self.maxItems)
            f.minBytes = 0
            return f
        }
    }

    /// One of `types`: the most items and fields, the fewest bytes.
    private mutating func alternatives(_ types: [FieldSpec.FieldType]) -> Figures {
        var out = Figures(items: 0, expanded: 0, minBytes: Int.max)
        for t in types {
            let f = figures(t)
            out.items = max(out.items, f.items)
            out.expanded = Self.cap(out.expanded + f.expanded, Self.maxExpandedFields)
            out.minBytes = min(out.minBytes, f.minBytes)
        }
        out.items = Self.cap(out.items + 1, Self.maxItems)
        return out
    }

    private static func fixed(_ size: FieldSpec.Size) -> Int {
        if case .fixed(let n) = size { return n }
        return 0
    }

    /// One past `bound` stands for anything past it.
    private static func cap(_ n: Int, _ bound: Int) -> Int { min(n, bound + 1) }
}
