import Foundation
import Yams

/// A YAML node with the file it came from: typed reads that fail with the file, the line and what
/// was expected.
struct YAMLValue {
    let node: Node
    let file: String

    var line: Int? { node.mark?.line }

    func error(_ message: String) -> DefinitionError { DefinitionError(file: file, line: line, message) }

    var isScalar: Bool { if case .scalar = node { return true } else { return false } }
    var isMapping: Bool { if case .mapping = node { return true } else { return false } }
    var isSequence: Bool { if case .sequence = node { return true } else { return false } }

    func string(_ what: String) throws(DefinitionError) -> String {
        guard case .scalar(let s) = node else { throw error("\(what): expected a text value, found \(kind)") }
        return s.string
    }

    func integer(_ what: String) throws(DefinitionError) -> Int64 {
        let text = try string(what)
        guard let v = Self.parseInteger(text) else {
            throw error("\(what): expected an integer (42, 0x2a or 0b101010), found '\(text)'")
        }
        return v
    }

    func double(_ what: String) throws(DefinitionError) -> Double {
        let text = try string(what)
        if let i = Self.parseInteger(text) { return Double(i) }
        guard let d = Double(text), d.isFinite else { throw error("\(what): expected a number, found '\(text)'") }
        // Double reads "1e-400" as 0: a number too close to zero to hold is not zero.
        if !d.isNormal, text.prefix(while: { !"eE".contains($0) }).contains(where: { "123456789".contains($0) }) {
            throw error("\(what): '\(text)' is too close to zero for a number (the smallest is 2.2e-308)")
        }
        return d
    }

    func bool(_ what: String) throws(DefinitionError) -> Bool {
        switch try string(what).lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        case let other: throw error("\(what): expected true or false, found '\(other)'")
        }
    }

    /// The entries of a mapping, in file order, with text keys; `allowed` lists the keys it may have.
    func mapping(_ what: String, allowed: [String]? = nil) throws(DefinitionError) -> [(key: String, value: YAMLValue)]
    {
        guard case .mapping(let m) = node else {
            throw error("\(what): expected a mapping (key: value lines), found \(kind)")
        }
        var out: [(String, YAMLValue)] = []
        for (k, v) in m {
            let key = try YAMLValue(node: k, file: file).string("a key of \(what)")
            if let allowed, !allowed.contains(key) {
                throw YAMLValue(node: k, file: file).error(
                    "unknown key '\(key)' in \(what); expected one of: \(allowed.joined(separator: ", "))")
            }
            out.append((key, YAMLValue(node: v, file: file)))
        }
        return out
    }

    func items(_ what: String) throws(DefinitionError) -> [YAMLValue] {
        guard case .sequence(let s) = node else { throw error("\(what): expected a list, found \(kind)") }
        return s.map { YAMLValue(node: $0, file: file) }
    }

    var kind: String {
        switch node {
        case .scalar(let s): return "'\(s.string)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    static func parseInteger(_ text: String) -> Int64? {
        var t = Substring(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: ""))
        let negative = t.hasPrefix("-")
        if negative { t.removeFirst() }
        guard let m = unsigned(t) else { return nil }
        if negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }

    /// An integer of up to 64 bits with no sign (a bit mask: 0x8000000000000000 is bit 63).
    static func parseUnsigned(_ text: String) -> UInt64? {
        unsigned(Substring(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")))
    }

    private static func unsigned(_ t: Substring) -> UInt64? {
        let lower = t.lowercased()
        let (digits, radix) =
            lower.hasPrefix("0x")
            ? (lower.dropFirst(2), 16)
            : lower.hasPrefix("0b") ? (lower.dropFirst(2), 2) : (Substring(lower), 10)
        // The integer parsers take a sign of their own ("--5", "0x-8"): a second sign is not an integer.
        guard let first = digits.first, first != "+", first != "-", digits.allSatisfy(\.isASCII) else { return nil }
        return UInt64(digits, radix: radix)
    }
}

/// Looks keys up in a mapping read by `YAMLValue.mapping`.
struct YAMLFields {
    let entries: [(key: String, value: YAMLValue)]
    let owner: YAMLValue

    subscript(_ key: String) -> YAMLValue? { entries.first { $0.key == key }?.value }

    func required(_ key: String, _ what: String) throws(DefinitionError) -> YAMLValue {
        guard let v = self[key] else { throw owner.error("\(what): missing '\(key)'") }
        return v
    }
}

extension YAMLValue {
    func fields(_ what: String, allowed: [String]) throws(DefinitionError) -> YAMLFields {
        YAMLFields(entries: try mapping(what, allowed: allowed), owner: self)
    }

    /// The same, each unknown key added to `errors` and left out, so the known ones are still read.
    func fields(_ what: String, allowed: [String], unknown errors: inout [DefinitionError]) throws(DefinitionError)
        -> YAMLFields
    {
        guard case .mapping(let m) = node else {
            throw error("\(what): expected a mapping (key: value lines), found \(kind)")
        }
        var entries: [(String, YAMLValue)] = []
        for (k, v) in m {
            let keyNode = YAMLValue(node: k, file: file)
            let key = try keyNode.string("a key of \(what)")
            guard allowed.contains(key) else {
                errors.append(
                    keyNode.error(
                        "unknown key '\(key)' in \(what); expected one of: \(allowed.joined(separator: ", "))"))
                continue
            }
            entries.append((key, YAMLValue(node: v, file: file)))
        }
        return YAMLFields(entries: entries, owner: self)
    }
}
