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
        guard let v = Self.parseInteger(text) else { throw error("\(what): expected an integer (42, 0x2a or 0b101010), found '\(text)'") }
        return v
    }

    func double(_ what: String) throws(DefinitionError) -> Double {
        let text = try string(what)
        if let i = Self.parseInteger(text) { return Double(i) }
        guard let d = Double(text), d.isFinite else { throw error("\(what): expected a number, found '\(text)'") }
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
    func mapping(_ what: String, allowed: [String]? = nil) throws(DefinitionError) -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let m) = node else { throw error("\(what): expected a mapping (key: value lines), found \(kind)") }
        var out: [(String, YAMLValue)] = []
        for (k, v) in m {
            let key = try YAMLValue(node: k, file: file).string("a key of \(what)")
            if let allowed, !allowed.contains(key) {
                throw YAMLValue(node: k, file: file).error("unknown key '\(key)' in \(what); expected one of: \(allowed.joined(separator: ", "))")
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
        var t = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")
        let negative = t.hasPrefix("-")
        if negative { t.removeFirst() }
        let magnitude: Int64?
        if t.lowercased().hasPrefix("0x") {
            magnitude = Int64(t.dropFirst(2), radix: 16)
        } else if t.lowercased().hasPrefix("0b") {
            magnitude = Int64(t.dropFirst(2), radix: 2)
        } else {
            magnitude = t.isEmpty || !t.allSatisfy(\.isASCII) ? nil : Int64(t)
        }
        // Int64's parser takes a sign of its own ("--5", "0x-8000000000000000"): a second sign is not
        // an integer, and negating Int64.min would trap.
        guard let magnitude, magnitude >= 0 else { return nil }
        return negative ? -magnitude : magnitude
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
    func fields(_ what: String, allowed: [String], unknown errors: inout [DefinitionError]) throws(DefinitionError) -> YAMLFields {
        guard case .mapping(let m) = node else { throw error("\(what): expected a mapping (key: value lines), found \(kind)") }
        var entries: [(String, YAMLValue)] = []
        for (k, v) in m {
            let keyNode = YAMLValue(node: k, file: file)
            let key = try keyNode.string("a key of \(what)")
            guard allowed.contains(key) else {
                errors.append(keyNode.error("unknown key '\(key)' in \(what); expected one of: \(allowed.joined(separator: ", "))"))
                continue
            }
            entries.append((key, YAMLValue(node: v, file: file)))
        }
        return YAMLFields(entries: entries, owner: self)
    }
}
