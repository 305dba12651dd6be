import BTLensCore
import BTLensDissect

/// A message's fields written as text as they are decoded (`MessageDissector.decode(_:into:)`):
/// `preset=bassBoost level=85% cells=[{id=1 mv=1000}]`, the text `MessageField.describe` gives,
/// made terminal-safe, with no values built for a line of the text timeline.
struct TextFields: FieldSink {
    private(set) var line = TextLine()
    /// Per open group or list (the message is the outermost group), a bit: whether it is a list,
    /// and whether something has been put in it (the next item takes a space). Bits, not an
    /// array, so that a mark is copied without counting a reference. 128 levels hold any
    /// definition (types nest at most 32 deep, a repeat of a group takes two levels a type); past
    /// them every item takes a space.
    private var lists: UInt128 = 0
    private var started: UInt128 = 0
    private var depth = 0

    struct Mark {
        var count: Int
        var lists: UInt128
        var started: UInt128
        var depth: Int
    }

    mutating func mark() -> Mark { Mark(count: line.count, lists: lists, started: started, depth: depth) }

    mutating func rewind(to mark: Mark) {
        line.truncate(to: mark.count)
        (lists, started, depth) = (mark.lists, mark.started, mark.depth)
    }

    mutating func name(_ name: String) {
        separate()
        line.add(text: name)
        line.add("=")
    }

    mutating func value(_ value: MessageValue) {
        switch value {
        case .group, .list: return put(value)
        default: break
        }
        item()
        switch value {
        case .int(let i): line.add(text: String(i))
        case .uint(let u): line.add(text: String(u))
        case .measure(let d, let unit): line.add(text: TerminalText.safe(MessageValue.number(d) + (unit ?? "")))
        case .intUnit(let i, let unit): line.add(text: TerminalText.safe(String(i) + unit))
        case .uintUnit(let u, let unit): line.add(text: TerminalText.safe(String(u) + unit))
        case .string(let s): line.add(text: "\"" + TerminalText.safe(s) + "\"")
        case .bytes(let b): line.add(text: b.isEmpty ? "\"\"" : Hex.string(b))
        case .enumerated(let name, let raw): line.add(text: name.map(TerminalText.safe) ?? "\(raw)?")
        case .flags(let names, let unnamed):
            let all = names + (unnamed != 0 ? [Hex.value(unnamed, width: 2)] : [])
            line.add(text: "[" + TerminalText.safe(all.joined(separator: ",")) + "]")
        case .group, .list: break
        }
    }

    mutating func raw(_ bytes: ArraySlice<UInt8>) {
        item()
        line.add(text: bytes.isEmpty ? "\"\"" : Hex.string(bytes))
    }

    mutating func beginGroup() { open("{", list: false) }
    mutating func endGroup() { close("}") }
    mutating func beginList() { open("[", list: true) }
    mutating func endList() { close("]") }

    /// A space before all but the first item of the innermost group or list.
    private mutating func separate() {
        guard depth < 128 else { return line.add(" ") }
        let bit: UInt128 = 1 << UInt128(depth)
        if started & bit != 0 { line.add(" ") }
        started |= bit
    }

    /// A value: in a list it is an item, in a group its name came first.
    private mutating func item() {
        if depth < 128, lists & (1 << UInt128(depth)) != 0 { separate() }
    }

    private mutating func open(_ bracket: StaticString, list: Bool) {
        item()
        line.add(bracket)
        depth += 1
        guard depth < 128 else { return }
        let bit: UInt128 = 1 << UInt128(depth)
        started &= ~bit
        if list { lists |= bit } else { lists &= ~bit }
    }

    private mutating func close(_ bracket: StaticString) {
        line.add(bracket)
        depth = max(0, depth - 1)
    }
}
