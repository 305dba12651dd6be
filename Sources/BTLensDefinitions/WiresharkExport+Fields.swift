import BTLensDissect

extension WiresharkExport {
    /// A definition's message fields as Lua: a ProtoField declaration per field name (`<protocol>.<name>`,
    /// so `aurora_headphones.preset == 1` filters), and the specs the runtime walks a payload by.
    struct FieldTable {
        let protocolName: String
        /// Lua declarations, in the order first met.
        private(set) var lines: [String] = []
        /// A declaration's text by key, to find a name declared before with the same type.
        private var declared: [String: String] = [:]
        /// The definition's `protobufs:` as Lua, once a field reads one of them.
        private(set) var protobufs = ""

        /// The runtime's own fields (runtime.lua's `btlens.register`): a message field of one of these
        /// names is declared with a number, as it would replace the frame's field otherwise.
        static let frameFields = [
            "command", "command_name", "version", "sequence", "flags", "fragment_index", "fragment_count", "length",
            "checksum", "payload", "packets", "response_to", "response_in", "latency",
        ]

        init(protocolName: String) {
            self.protocolName = protocolName
            for name in Self.frameFields { declared[name] = "" }
        }

        var declarations: String { lines.joined(separator: "\n") }

        /// The Lua table of specs for `fields`.
        mutating func list(_ fields: [FieldSpec]) -> String {
            "{ " + fields.map { spec($0) }.joined(separator: ", ") + " }"
        }

        private mutating func spec(_ f: FieldSpec) -> String {
            var parts = ["n = \(quoted(f.name))"]
            switch f.repeats {
            case .eos?: parts.append("r = \"eos\"")
            case .count(let n)?: parts.append("r = \(n)")
            case .field(let name)?: parts.append("r = \(quoted(name))")
            case nil: break
            }
            if let unit = f.unit { parts.append("u = \(quoted(" " + unit))") }
            if let scale = f.scale { parts.append("sc = \(scale)") }
            if let offset = f.offset { parts.append("of = \(offset)") }
            switch f.valid {
            case .range(let lo, let hi)?:
                if let lo { parts.append("lo = \(lo)") }
                if let hi { parts.append("hi = \(hi)") }
            case .anyOf(let values)?:
                parts.append("any = { " + values.map(String.init).joined(separator: ", ") + " }")
            case nil: break
            }
            if let time = f.time { parts.append("tm = \(time.rawValue)") }
            if let pad = f.padRight { parts.append("pad = \(pad)") }
            parts.append(kind(f, f.type))
            return "{ " + parts.joined(separator: ", ") + " }"
        }

        /// The part of a spec that says how to read `type`, with the field it shows as.
        mutating func kind(_ f: FieldSpec, _ type: FieldSpec.FieldType) -> String {
            switch type {
            case .integer(let width, let signed, let bigEndian):
                let key = declare(f.name, "t = \"int\", w = \(width), s = \(signed)\(Self.shown(f))")
                return "f = \(quoted(key)), k = \"int\", w = \(width), s = \(signed), be = \(bigEndian)"
                    + flagBits(f, key: key, width: width)
            case .varint(let signed): return varintKind(f, signed: signed)
            case .bits(let n): return bitsKind(f, bits: n)
            case .float(let width, let bigEndian): return floatKind(f, width: width, bigEndian: bigEndian)
            case .stringZ(let size): return stringZKind(f, size: size)
            case .bytes(let size):
                return "f = \(quoted(declare(f.name, "t = \"bytes\""))), k = \"bytes\", z = \(Self.size(size))"
            case .string(let size):
                return "f = \(quoted(declare(f.name, "t = \"string\""))), k = \"string\", z = \(Self.size(size))"
            case .protobuf(let size):
                return "f = \(quoted(declare(f.name, "t = \"group\""))), k = \"protobuf\", z = \(Self.size(size))"
            case .protobufSchema(let schemas, let name, let size):
                if protobufs.isEmpty { protobufs = Self.lua(schemas) }
                let key = declare(f.name, "t = \"group\"")
                return "f = \(quoted(key)), k = \"pbs\", m = \(quoted(name)), z = \(Self.size(size))"
            case .group(let inner):
                let key = declare(f.name, "t = \"group\"")
                return "f = \(quoted(key)), k = \"group\", g = \(list(inner))"
            case .tlv(let tlv, let size):
                return tlvKind(f, tlv, size)
            case .switchOn(let on, let cases, let fallback):
                let listed = cases.keys.sorted().map { "[\($0)] = { \(kind(f, cases[$0] ?? .bytes(.eos))) }" }
                // Always a fallback, as btlens reads bytes: the runtime's own had no field to show in.
                let fb = ", fb = { \(kind(f, fallback ?? .bytes(.eos))) }"
                return "k = \"switch\", on = \(quoted(on)), cases = { \(listed.joined(separator: ", ")) }\(fb)"
            }
        }

        /// A boolean field per named bit of a flags field (`<protocol>.<field>.<bit name>`), as the
        /// frame's flag bits have; Wireshark's bit masks are 32 bits wide.
        private mutating func flagBits(_ f: FieldSpec, key: String, width: Int) -> String {
            guard let flags = f.flags, width <= 4 else { return "" }
            let bits = flags.filter { $0.mask != 0 && $0.mask <= UInt64(UInt32.max) }.map { flag in
                let bit = declare(
                    "\(key).\(WiresharkExport.abbrevPart(flag.name))",
                    "t = \"bool\", bits = \(width * 8), mask = \(flag.mask)", shownAs: flag.name)
                return "{ \(flag.mask), \(quoted(flag.name)), \(quoted(bit)) }"
            }
            return ", fl = { " + bits.joined(separator: ", ") + " }"
        }

        /// An integer field's enum values and base, for its declaration.
        static func shown(_ f: FieldSpec) -> String {
            let values =
                f.enumNames.map { e in
                    ", enum = { " + e.all.map { "[\($0.raw)] = \(quoted($0.name))" }.joined(separator: ", ") + " }"
                } ?? ""
            return (f.flags != nil ? ", hex = true" : "") + values
        }

        static func size(_ s: FieldSpec.Size) -> String {
            switch s {
            case .fixed(let n): return "\(n)"
            case .field(let name): return quoted(name)
            case .eos: return "\"eos\""
            }
        }

        /// The key of a field named `name` declared as `lua`: the name itself, or the name with a
        /// number where another message uses the name for a value of another type.
        mutating func declare(_ name: String, _ lua: String, shownAs label: String? = nil) -> String {
            var key = name
            var n = 1
            while let other = declared[key], other != lua {
                n += 1
                key = "\(name)_\(n)"
            }
            if declared[key] == nil {
                declared[key] = lua
                lines.append("    [\(quoted(key))] = { n = \(quoted(label ?? name)), \(lua) },")
            }
            return key
        }
    }
}
