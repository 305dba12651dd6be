import BTLensCore
import BTLensDissect

/// How a compiled filter judges one event. As in Wireshark: a comparison on a field the event
/// lacks is false (`!=` included); on a field with several values (an array) it holds when one of
/// them does, and `!=` when none is equal; `!=` on a value of another kind holds.
extension Node {
    /// A test of an event, given the time `reltime` counts from.
    typealias Test = (Event, Timestamp) -> Bool

    /// The node as nested closures, made once: matching an indirect enum per event would copy
    /// each test's field and value out of it (a dozen reference counts per event); a closure
    /// reads what it captured in place.
    func test() -> Test {
        switch self {
        case .and(let a, let b):
            let (x, y) = (a.test(), b.test())
            return { x($0, $1) && y($0, $1) }
        case .or(let a, let b):
            let (x, y) = (a.test(), b.test())
            return { x($0, $1) || y($0, $1) }
        case .not(let a):
            let x = a.test()
            return { !x($0, $1) }
        // The type is found only for a test of it: most filters test a field.
        case .types(let t): return { e, _ in t.contains(EventType(e)) }
        case .present(let f): return { e, origin in f.value(in: e, origin: origin) != nil }
        case .compare(let f, let c, let o):
            return { e, origin in
                guard let v = f.value(in: e, origin: origin) else { return false }
                return Self.compare(v, c, o)
            }
        case .contains(let f, let o):
            return { e, origin in
                guard let v = f.value(in: e, origin: origin) else { return false }
                return Self.contains(v, o)
            }
        case .matches(let f, let p):
            return { e, origin in
                guard let v = f.value(in: e, origin: origin) else { return false }
                return Self.matches(v, p)
            }
        case .within(let f, let members):
            return { e, origin in
                guard let v = f.value(in: e, origin: origin) else { return false }
                return Self.within(v, members)
            }
        }
    }

    /// `!=` is "present and not equal": true too for a value of another kind (a name against a number).
    static func compare(_ v: FieldReading, _ c: Comparison, _ o: Operand) -> Bool {
        if c == .notEqual { return !compare(v, .equal, o) }
        if case .list(let items) = v { return items.contains { compare($0, c, o) } }
        guard let order = order(v, o) else { return false }
        return c.holds(order)
    }

    /// The value against the operand: negative, zero or positive; nil when they cannot be compared.
    @inline(__always) static func order(_ v: FieldReading, _ o: Operand) -> Int? {
        switch v {
        case .int(let i):
            if let n = o.int { return i < n ? -1 : i == n ? 0 : 1 }
            guard let d = o.number else { return nil }
            return order(Double(i), d)
        case .number(let x):
            guard let d = o.number else { return nil }
            return order(x, d)
        case .string(let s):
            if s == o.text { return 0 }
            return s.utf8.lexicographicallyPrecedes(o.text.utf8) ? -1 : 1
        case .bytes(let b):
            guard let ob = o.bytes else { return nil }
            if b.elementsEqual(ob) { return 0 }
            return b.lexicographicallyPrecedes(ob) ? -1 : 1
        case .bool(let b):
            guard let ob = o.bool else { return nil }
            return b == ob ? 0 : (b ? 1 : -1)
        case .list, .object: return nil
        }
    }

    @inline(__always) private static func order(_ a: Double, _ b: Double) -> Int? {
        a < b ? -1 : a == b ? 0 : a > b ? 1 : nil
    }

    static func contains(_ v: FieldReading, _ o: Operand) -> Bool {
        switch v {
        case .string(let s): return o.text.isEmpty || Self.find(Array(o.text.utf8)[...], in: Array(s.utf8)[...])
        case .bytes(let b):
            guard let ob = o.bytes else { return false }
            return Self.find(ob[...], in: b)
        case .list(let items): return items.contains { contains($0, o) }
        default: return false
        }
    }

    /// Whether `needle` occurs in `hay`, byte by byte.
    private static func find(_ needle: ArraySlice<UInt8>, in hay: ArraySlice<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard hay.count >= needle.count else { return false }
        var i = hay.startIndex
        let last = hay.endIndex - needle.count
        while i <= last {
            if hay[i] == first && hay[i..<i + needle.count].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    static func matches(_ v: FieldReading, _ p: Pattern) -> Bool {
        switch v {
        case .string(let s): return p.matches(s)
        case .bytes(let b): return p.matches(Hex.string(b))
        case .list(let items): return items.contains { matches($0, p) }
        default: return false
        }
    }

    static func within(_ v: FieldReading, _ members: [Member]) -> Bool {
        if case .list(let items) = v { return items.contains { within($0, members) } }
        return members.contains { m in
            switch m {
            case .value(let o): return order(v, o) == 0
            case .range(let low, let high):
                guard let a = order(v, low), let b = order(v, high) else { return false }
                return a >= 0 && b <= 0
            }
        }
    }
}
