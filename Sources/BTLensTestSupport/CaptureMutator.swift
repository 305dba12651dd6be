/// One mutant of a capture: its form, seed and index name it, and the same three give the same bytes.
public struct Mutant {
    public var form: MutantForm
    public var seed: UInt64
    public var index: Int
    /// The sample it was made from, and what was done to it.
    public var base: String
    public var steps: [String]
    public var bytes: [UInt8]

    public var fileName: String { "\(form.rawValue)-\(seed)-\(index).\(form.fileExtension)" }
    public var about: String { "\(base): \(steps.joined(separator: "; "))" }
}

/// Seeded mutants of the sample captures in every form (scripts/mutate, MutantCLITests): blind
/// (bit flips, byte runs, blind splices) and aware of the structure (length and time fields set
/// to extremes, records duplicated, dropped, swapped or taken from another capture, cuts at or
/// near a record boundary).
public enum CaptureMutator {
    enum Operation: CaseIterable {
        case lengthField, timeField, otherField, splice, flips, run, blindSplice, truncate

        /// Operations that need the layout come before those that move bytes.
        var phase: Int {
            switch self {
            case .lengthField, .timeField, .otherField: return 0
            case .splice: return 1
            case .flips, .run, .blindSplice: return 2
            case .truncate: return 3
            }
        }
    }

    /// How often each operation is drawn.
    static let draws: [Operation] = [
        .lengthField, .lengthField, .lengthField, .timeField, .otherField, .splice, .splice,
        .flips, .flips, .flips, .run, .run, .blindSplice, .truncate,
    ]

    public static func mutant(_ form: MutantForm, bases: [MutantBase], seed: UInt64, index: Int) -> Mutant {
        // FNV-1a of the form's name, so that forms given one seed are not mutated alike.
        let salt = form.rawValue.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        var rng = SplitMix(seed: salt ^ seed &* 0x9e37_79b9_7f4a_7c15 ^ UInt64(index) &* 0xd134_2543_de82_ef95)
        _ = rng.next()
        let base = bases[rng.below(bases.count)]
        var steps: [String] = []
        var outer = base
        if let inner = base.inner, rng.below(3) != 0 {
            // Mostly the records inside; sometimes the container as well.
            steps.append("inside:")
            outer = inner.wrap(mutate(inner.base, others: bases.compactMap { $0.inner?.base }, &rng, &steps))
            if rng.below(4) == 0 {
                steps.append("outside:")
                outer.bytes = mutate(outer, others: [], &rng, &steps)
            }
        } else {
            outer.bytes = mutate(base, others: bases, &rng, &steps)
        }
        if steps.allSatisfy({ $0.hasSuffix(":") }), !outer.bytes.isEmpty {
            // Every operation drawn found nothing to work on: one bit flip, so no mutant is the base.
            let at = rng.below(outer.bytes.count)
            outer.bytes[at] ^= 1
            steps.append("flip bits 0x\(hex(at)).0")
        }
        return Mutant(
            form: form, seed: seed, index: index, base: base.name, steps: steps,
            bytes: outer.render?(outer.bytes) ?? outer.bytes)
    }

    static func mutate(_ base: MutantBase, others: [MutantBase], _ rng: inout SplitMix, _ steps: inout [String])
        -> [UInt8]
    {
        var bytes = base.bytes
        let operations = (0..<1 + rng.below(3)).map { _ in draws[rng.below(draws.count)] }.sorted {
            $0.phase < $1.phase
        }
        var layoutHolds = true
        for op in operations {
            switch op {
            case .lengthField, .timeField, .otherField:
                let kind: MutantBase.FieldKind = op == .lengthField ? .length : op == .timeField ? .time : .other
                let fields = base.fields.filter { $0.kind == kind }
                guard layoutHolds, !fields.isEmpty else { continue }
                let f = fields[rng.below(fields.count)]
                let value = extreme(for: f, current: base.value(f), &rng)
                put(value, f, &bytes)
                steps.append("\(f.name) at 0x\(hex(f.offset)) := 0x\(hex(value))")
            case .splice:
                guard layoutHolds, base.records.count >= 2 else { continue }
                bytes = splice(base, others: others, &rng, &steps)
                layoutHolds = false
            case .flips:
                guard !bytes.isEmpty else { continue }
                let at = (0..<1 + rng.below(8)).map { _ in (rng.below(bytes.count), rng.below(8)) }
                for (o, bit) in at { bytes[o] ^= 1 << bit }
                steps.append("flip bits " + at.map { "0x\(hex($0.0)).\($0.1)" }.joined(separator: ","))
            case .run:
                guard !bytes.isEmpty else { continue }
                let start = rng.below(bytes.count)
                let length = 1 + rng.below(min(64, bytes.count - start))
                let fill: [UInt8]
                switch rng.below(4) {
                case 0: fill = Array(repeating: 0, count: length)
                case 1: fill = Array(repeating: 0xff, count: length)
                case 2: fill = Array(repeating: UInt8(truncatingIfNeeded: rng.next()), count: length)
                default: fill = rng.bytes(length)
                }
                // Overwritten, inserted or deleted.
                switch rng.below(4) {
                case 0:
                    bytes.insert(contentsOf: fill, at: start)
                    steps.append("insert \(length) bytes at 0x\(hex(start))")
                case 1:
                    bytes.removeSubrange(start..<start + length)
                    steps.append("delete \(length) bytes at 0x\(hex(start))")
                default:
                    bytes.replaceSubrange(start..<start + length, with: fill)
                    steps.append(
                        "bytes 0x\(hex(start))+\(length) := \(fill.prefix(4).map { hex(Int($0)) }.joined(separator: " "))…"
                    )
                }
                layoutHolds = false
            case .blindSplice:
                guard bytes.count >= 2 else { continue }
                let from = rng.below(bytes.count)
                let length = 1 + rng.below(min(256, bytes.count - from))
                let to = rng.below(bytes.count)
                bytes.insert(contentsOf: Array(bytes[from..<from + length]), at: to)
                steps.append("copy 0x\(hex(from))+\(length) to 0x\(hex(to))")
                layoutHolds = false
            case .truncate:
                guard !bytes.isEmpty else { continue }
                var cut = rng.below(bytes.count)
                if rng.below(2) == 0, layoutHolds, !base.records.isEmpty {
                    cut = min(bytes.count - 1, base.records[rng.below(base.records.count)].lowerBound + rng.below(28))
                }
                bytes.removeSubrange(cut...)
                steps.append("cut at 0x\(hex(cut))")
            }
        }
        return bytes
    }

    /// A value a hostile or damaged file has: 0, the signed and unsigned limits of its width, one
    /// off the current value; for a time, its top bit or top byte set.
    static func extreme(for f: MutantBase.Field, current: UInt64, _ rng: inout SplitMix) -> UInt64 {
        let bits = UInt64(f.width * 8)
        let all: UInt64 = bits == 64 ? .max : (1 << bits) - 1
        let top: UInt64 = 1 << (bits - 1)
        var choices: [UInt64] = [0, all, top, top - 1, current &+ 1, current &- 1, rng.next()]
        switch f.kind {
        case .length: choices += [0x7fff, 0xffff, 0x8000_0000, 0x1_0000, current &* 2]
        case .time:
            choices += [current | 0x80 << (bits - 8), current | top, current ^ (1 << UInt64(rng.below(Int(bits))))]
        case .other: break
        }
        return choices[rng.below(choices.count)] & all
    }

    static func put(_ value: UInt64, _ f: MutantBase.Field, _ bytes: inout [UInt8]) {
        for i in 0..<f.width {
            let shift = UInt64(f.bigEndian ? f.width - 1 - i : i) * 8
            bytes[f.offset + i] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    /// Records duplicated, dropped, swapped, or taken from another capture of the form.
    static func splice(_ base: MutantBase, others: [MutantBase], _ rng: inout SplitMix, _ steps: inout [String])
        -> [UInt8]
    {
        let records = base.records
        let head = Array(base.bytes[..<records[0].lowerBound])
        let tail = Array(base.bytes[records[records.count - 1].upperBound...])
        var parts = records.map { Array(base.bytes[$0]) }
        let i = rng.below(parts.count)
        let j = rng.below(parts.count)
        switch rng.below(4) {
        case 0:
            parts.insert(parts[i], at: j)
            steps.append("record \(i + 1) copied before record \(j + 1)")
        case 1:
            parts.remove(at: i)
            steps.append("record \(i + 1) dropped")
        case 2:
            parts.swapAt(i, j)
            steps.append("records \(i + 1) and \(j + 1) swapped")
        default:
            let donors = others.filter { !$0.records.isEmpty }
            guard !donors.isEmpty else {
                parts.remove(at: i)
                steps.append("record \(i + 1) dropped")
                break
            }
            let other = donors[rng.below(donors.count)]
            let r = other.records[rng.below(other.records.count)]
            parts.insert(Array(other.bytes[r]), at: i)
            steps.append("a record of \(other.name) at 0x\(hex(r.lowerBound)) inserted before record \(i + 1)")
        }
        return head + parts.joined() + tail
    }

    static func hex(_ v: Int) -> String { String(v, radix: 16) }
    static func hex(_ v: UInt64) -> String { String(v, radix: 16) }
}
