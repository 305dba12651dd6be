import BTLensCore
import BTLensDissect
import Foundation
import Yams

/// Reads one definition file (the schema is in Dissectors/README.md). Every error names the file,
/// the line and what was expected; nothing in a file can make it trap or loop.
enum DefinitionParser {
    static let maxFileBytes = 1 << 20
    /// Bracket and type nesting allowed: deep enough for any protocol, shallow enough for the stack.
    static let maxNesting = 32
    /// Block nesting the YAML parser reads (libyaml's limit): deeper is an error at its line.
    static let yamlNesting = 1000
    /// YAML nodes a file may expand to. Aliases are expanded while composing, so a small file of
    /// nested aliases ("billion laughs") could otherwise take hours to walk.
    static let maxNodes = 100_000

    static let topKeys = [
        "protocol", "title", "endian", "bind", "framing", "flags", "enums", "protobufs", "types", "messages", "pairing",
        "examples",
    ]

    /// The definition, or every error of the file in line order.
    static func parse(text: String, file: String) throws(DefinitionErrors) -> DefinitionDissector {
        let root: Node
        do {
            root = try compose(text: text, file: file)
        } catch {
            throw DefinitionErrors([error])
        }
        var p = Parser(file: file)
        do {
            let d = try p.definition(YAMLValue(node: root, file: file))
            if p.errors.isEmpty { return d }
        } catch {
            p.errors.append(error)
        }
        throw DefinitionErrors(
            p.errors.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(
                \.element))
    }

    /// The YAML of a definition file, within the bounds on size, nesting and expansion.
    private static func compose(text: String, file: String) throws(DefinitionError) -> Node {
        guard text.utf8.count <= maxFileBytes else {
            throw DefinitionError(
                file: file, line: nil, "file of \(text.utf8.count) bytes; definitions are limited to \(maxFileBytes)")
        }
        try checkNesting(text, file: file)
        let root: Node
        do {
            // Scalars are read as text and parsed here, so no tag is resolved: the default
            // resolver's regular expressions cost more than the rest of a small capture's run.
            guard let node = try Yams.compose(yaml: text, .basic) else {
                throw DefinitionError(file: file, line: nil, "empty file; expected a mapping with 'protocol:'")
            }
            root = node
        } catch let e as DefinitionError {
            throw e
        } catch let e as YamlError {
            throw yamlError(e, text: text, file: file)
        } catch {
            throw DefinitionError(file: file, line: nil, "YAML: \(error)")
        }
        var budget = maxNodes
        guard fits(root, &budget) else {
            throw DefinitionError(
                file: file, line: nil, "the file expands to more than \(maxNodes) YAML nodes (nested aliases?)")
        }
        return root
    }

    /// Counts nodes down from `budget`, stopping as soon as it runs out.
    private static func fits(_ node: Node, _ budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch node {
        case .scalar, .alias: return true
        case .sequence(let s): return s.allSatisfy { fits($0, &budget) }
        case .mapping(let m): return m.allSatisfy { fits($0.key, &budget) && fits($0.value, &budget) }
        }
    }

    /// Flow collections nested past `maxNesting`, before the YAML parser recurses into them.
    private static func checkNesting(_ text: String, file: String) throws(DefinitionError) {
        var depth = 0
        var line = 1
        var quote: UInt8? = nil
        var comment = false
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "\n"):
                line += 1
                comment = false
                quote = nil
            case _ where comment: break
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = quote == nil ? c : (quote == c ? nil : quote)
            case _ where quote != nil: break
            case UInt8(ascii: "#"): comment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxNesting {
                    throw DefinitionError(file: file, line: line, "brackets nested deeper than \(maxNesting)")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
    }

    private static func yamlError(_ e: YamlError, text: String, file: String) -> DefinitionError {
        switch e {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            // libyaml's own words name its C API: say what it means for the file.
            if problem.hasPrefix("Maximum nesting level reached") {
                return DefinitionError(
                    file: file, line: mark.line, "YAML nested deeper than the \(yamlNesting) levels btlens reads")
            }
            return DefinitionError(file: file, line: mark.line, "YAML: \(problem)")
        case .reader(let problem, let offset?, let value, _):
            // A control character (a NUL byte, ESC): its line, counted to its byte offset.
            let line = text.utf8.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            let byte = value >= 0 ? String(format: " (0x%02x)", value) : ""
            return DefinitionError(file: file, line: line, "YAML: \(problem)\(byte)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return DefinitionError(
                file: file, line: context.mark.line, "YAML: duplicate key \(duplicates.joined(separator: ", "))")
        default:
            return DefinitionError(file: file, line: nil, "YAML: \(e)")
        }
    }

    /// The state of one file's parse: enums and types are looked up by name as fields refer to them.
    /// An error in one part (a key, an enum, a message, a field, a binding, an example) is kept and
    /// the rest still read, so one run reports all of a file's errors.
    struct Parser {
        let file: String
        var bigEndian = false
        var enums: [String: [Int64: String]] = [:]
        var typeSources: [String: YAMLValue] = [:]
        var types: [String: [FieldSpec]] = [:]
        var protobufSchemas: ProtobufSchemas?
        var resolving: [String] = []
        var name = ""
        var errors: [DefinitionError] = []
        /// Names whose definition has an error already said: a reference to one is not another error.
        var broken: Set<String> = []
        /// The cost of the messages read so far (`DefinitionCost`).
        var cost = DefinitionCost()
        var expandedFields = 0
        /// While a type no message uses is checked: the fields it names are taken to come before it.
        var checkingUnused = false

        init(file: String) { self.file = file }

        /// The part's value, or nil with its error kept (a type read twice says its error once).
        /// Untyped, so that the parts' closures need no annotation: they throw only DefinitionError.
        mutating func attempt<T>(_ part: (inout Parser) throws -> T) -> T? {
            do {
                return try part(&self)
            } catch {
                let e = error as? DefinitionError ?? DefinitionError(file: file, line: nil, "\(error)")
                if !errors.contains(e) { errors.append(e) }
                return nil
            }
        }

        mutating func definition(_ root: YAMLValue) throws(DefinitionError) -> DefinitionDissector {
            let top = try root.fields("the definition", allowed: DefinitionParser.topKeys, unknown: &errors)
            name = attempt { p in try p.protocolName(top.required("protocol", "the definition")) } ?? ""
            let title = attempt { p in try p.title(top) } ?? nil
            if let e = top["endian"] {
                attempt { p in
                    switch try e.string("endian") {
                    case "le": p.bigEndian = false
                    case "be": p.bigEndian = true
                    case let other: throw e.error("endian: expected le or be, found '\(other)'")
                    }
                }
            }
            let enumEntries: [(key: String, value: YAMLValue)] =
                top["enums"].flatMap { e in attempt { _ in try e.mapping("enums") } } ?? []
            for (enumName, values) in enumEntries {
                guard let table = attempt({ _ in try Self.enumeration(enumName, values) }) else {
                    broken.insert(enumName)
                    continue
                }
                enums[enumName] = table
            }
            if let v = top["protobufs"] { attempt { p in try p.protobufs(v) } }
            let typeEntries: [(key: String, value: YAMLValue)] =
                top["types"].flatMap { t in attempt { _ in try t.mapping("types") } } ?? []
            for (typeName, v) in typeEntries { typeSources[typeName] = v }
            let flagNames =
                (top["flags"].flatMap { v in
                    attempt { p in try p.flags(v, "flags", bits: 8, of: "the frame's flags byte") }
                } ?? [])
                .map { (UInt8(truncatingIfNeeded: $0.mask), $0.name) }
            let defaultFraming = top["framing"].flatMap { v in attempt { p in try p.framing(v) } } ?? .frames(.a5)
            var messages: [DefinitionDissector.MessageDef] = []
            var responses: [(index: Int, value: YAMLValue)] = []
            for item in (top["messages"].flatMap { m in attempt { _ in try m.items("messages") } } ?? []) {
                guard let (def, response) = attempt({ p in try p.message(item, existing: messages) }) else {
                    if let n = (try? item.mapping("a message"))?.first(where: { $0.key == "name" }),
                        let text = try? n.value.string("")
                    {
                        broken.insert(text)
                    }
                    continue
                }
                if let response { responses.append((messages.count, response)) }
                messages.append(def)
            }
            // A type no message uses is checked all the same: it contains itself, or it is wrong.
            for (typeName, v) in typeEntries where types[typeName] == nil && !broken.contains(typeName) {
                attempt { p in
                    p.checkingUnused = true
                    defer { p.checkingUnused = false }
                    _ = try p.namedType(typeName, v, known: [])
                }
            }
            var table: [UInt16: UInt16] = [:]
            for (i, v) in responses {
                attempt { p in
                    guard let request = messages[i].id else {
                        throw v.error("message \(messages[i].name): 'response' needs the message to have an id")
                    }
                    if let id = try p.responseId(v, messages) { table[request] = id }
                }
            }
            let (bindings, valueMessages) = bind(top["bind"], messages: messages, defaultFraming: defaultFraming)
            let pairing =
                top["pairing"].map { v in attempt { p in try p.pairingRule(v, table: table, messages: messages) } }
                ?? (table.isEmpty ? nil : PairingRule(match: .oldest, responseCommand: .table(table)))
            let replayed = top["examples"].map { v in examples(v) } ?? []
            return DefinitionDissector(
                name: name, title: title, origin: file, bindings: bindings, framing: defaultFraming,
                pairing: pairing, examples: replayed, messages: messages, flagNames: flagNames,
                valueMessages: valueMessages, protocolLine: top["protocol"]?.line)
        }

        static func enumeration(_ name: String, _ values: YAMLValue) throws(DefinitionError) -> [Int64: String] {
            var table: [Int64: String] = [:]
            var spelt = Spellings("enum \(name)")
            for (k, v) in try values.mapping("enum \(name)") {
                guard let raw = YAMLValue.parseInteger(k) else {
                    throw values.error("enum \(name): key '\(k)' is not an integer")
                }
                try spelt.add(raw, k, v)
                table[raw] = try v.string("enum \(name) value \(k)")
            }
            return table
        }

        // MARK: names and numbers

        func identifier(_ v: YAMLValue, _ what: String, allowDots: Bool = false) throws(DefinitionError) -> String {
            let s = try v.string(what)
            let ok =
                !s.isEmpty
                && s.unicodeScalars.allSatisfy {
                    ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                        || (allowDots && $0 == "."))
                        && $0.isASCII
                }
            guard ok else { throw v.error("\(what): '\(s)' is not a name (letters, digits, _ and -)") }
            return s
        }

        /// The definition's title; without one, the name is the protocol's title in Wireshark too.
        func title(_ top: YAMLFields) throws(DefinitionError) -> String? {
            let title = try top["title"]?.string("title")
            if let t = top["title"] ?? top["protocol"], WiresharkExport.wiresharkTitles.contains(title ?? name) {
                throw t.error(
                    "\(top["title"] == nil ? "protocol" : "title"): '\(title ?? name)' is the title of a protocol"
                        + " of Wireshark's own; the export could not register it")
            }
            return title
        }

        /// The protocol's name, which the Wireshark export registers as a protocol beside Wireshark's own.
        func protocolName(_ v: YAMLValue) throws(DefinitionError) -> String {
            let s = try identifier(v, "protocol", allowDots: true)
            let exported = WiresharkExport.filterName(s).lowercased()
            guard !WiresharkExport.wiresharkProtocols.contains(exported) else {
                throw v.error(
                    "protocol: '\(s)' is Wireshark's own protocol \(exported); the export could not register it")
            }
            if let why = WiresharkExport.filterNameProblem(exported) {
                throw v.error("protocol: '\(s)' exports to Wireshark as \(exported), which \(why)")
            }
            return s
        }

        func integer(_ v: YAMLValue, _ what: String, in range: ClosedRange<Int64>) throws(DefinitionError) -> Int64 {
            let i = try v.integer(what)
            guard range.contains(i) else {
                throw v.error("\(what): \(i) is outside \(range.lowerBound)…\(range.upperBound)")
            }
            return i
        }

        /// Named bits of a field `bits` wide (`of` says which field): a mask wider is refused.
        func flags(_ v: YAMLValue, _ what: String, bits: Int, of field: String) throws(DefinitionError) -> [(
            mask: UInt64, name: String
        )] {
            var out: [(UInt64, String)] = []
            var spelt = Spellings(what)
            for (k, name) in try v.mapping(what) {
                guard let mask = YAMLValue.parseUnsigned(k), mask > 0 else {
                    throw v.error("\(what): key '\(k)' is not a bit mask (0x01, 0x80, …)")
                }
                guard bits >= 64 || mask >> UInt64(bits) == 0 else {
                    throw v.error("\(what): key '\(k)' is a bit beyond the \(bits) bits of \(field)")
                }
                try spelt.add(Int64(bitPattern: mask), k, name)
                out.append((mask, try name.string("\(what) \(k)")))
            }
            return out
        }

        static func uuid(_ v: YAMLValue, _ what: String) throws(DefinitionError) -> BluetoothUUID {
            let text = try v.string(what).lowercased()
            let hex = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text.replacingOccurrences(of: "-", with: "")
            guard let bytes = Hex.bytes(hex) else {
                throw v.error("\(what): '\(text)' is not a UUID (2a19, 0xfff3 or 128-bit)")
            }
            switch bytes.count {
            case 2: return .bit16(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            case 4:
                return BluetoothUUID(
                    littleEndian128: (bytes + [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5f, 0x9b, 0x34, 0xfb])
                        .reversed())
            case 16: return BluetoothUUID(littleEndian128: bytes.reversed())
            default: throw v.error("\(what): '\(text)' is not a UUID (16, 32 or 128 bits)")
            }
        }
    }
}
