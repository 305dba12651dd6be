import BTLensCore
import BTLensDissect
import Foundation

/// The sections around the fields: framing, messages, bindings, pairing, examples.
extension DefinitionParser.Parser {
    // MARK: framing

    /// `a5`, `value`, `event-byte`, or a frame variant (magic, header, length-counts, checksum).
    /// Each part of a variant is read even when another has an error, so all of them are said.
    mutating func framing(_ v: YAMLValue) throws(DefinitionError) -> Framing {
        if v.isScalar {
            switch try v.string("framing") {
            case "a5": return .frames(.a5)
            case "value": return .values(commandByte: false)
            case "event-byte": return .values(commandByte: true)
            case let other:
                let delimited = Delimiting.named.contains { $0.name == other }
                throw v.error(
                    "framing: unknown framing '\(other)'; expected a5, value, event-byte, or a mapping with magic, header, length-counts, checksum, delimiter"
                        + (delimited ? " ({delimiter: \(other), header: [command]})" : ""))
            }
        }
        if v.isMapping, try v.mapping("framing").contains(where: { $0.key == "value" }) { return try valueFraming(v) }
        let m = try v.fields(
            "framing",
            allowed: [
                "magic", "header", "length-counts", "checksum", "delimiter", "end", "max-length", "size",
                "length-adjust", "preamble", "more-follows", "sequence-per", "encrypted", "span-values",
            ])
        let errorsBefore = errors.count
        let delimiting = m["delimiter"].flatMap { d in attempt { p in try p.delimiting(d) } }
        let magic =
            m["delimiter"] != nil && m["magic"] == nil
            ? [] : attempt { p in try p.magicBytes(m.required("magic", "framing")) }
        var header: [FrameFormat.HeaderField] = []
        let headerNode = attempt { _ in try m.required("header", "framing") }
        for item in headerNode.flatMap({ h in attempt { _ in try h.items("framing header") } }) ?? [] {
            if let field = attempt({ p in try p.headerField(item) }) { header.append(field) }
        }
        var counts = FrameFormat.LengthCounts.payload
        if let c = m["length-counts"] {
            attempt { _ in
                let text = try c.string("framing length-counts")
                guard let value = FrameFormat.LengthCounts(rawValue: text) else {
                    throw c.error(
                        "framing length-counts: '\(text)'; expected \(FrameFormat.LengthCounts.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                counts = value
            }
        }
        let checksum =
            m["checksum"].flatMap { c in attempt { p in try p.checksum(c, header: header, magic: magic?.count ?? 0) } }
            ?? nil
        let end = m["end"].flatMap { e in attempt { p in try p.endBytes(e, delimited: m["delimiter"] != nil) } } ?? []
        let maxLength = m["max-length"].flatMap { l in
            attempt { p in Int(try p.integer(l, "framing max-length", in: 1...Int64(Limits().messageBytes))) }
        }
        let sequences = m["sequence-per"].flatMap { k in attempt { p in try p.sequenceScopes(k, header: header) } }
        let encryptedFlag = m["encrypted"].flatMap { e in attempt { p in try p.encryptedFlag(e, header: header) } }
        let spansValues = m["span-values"].flatMap { s in attempt { _ in try s.bool("framing span-values") } } ?? true
        let preamble = m["preamble"].flatMap { p in attempt { parser in try parser.preamble(p) } } ?? []
        let more = m["more-follows"].flatMap { f in attempt { p in try p.moreFollows(f, header: header) } }
        let sized = attempt { p in try p.frameSize(m, header: header, magic: magic, checksum: checksum, end: end) }
        // The header's rules are checked only when every field of it was read.
        if let headerNode, errors.count == errorsBefore {
            try headerRules(
                headerNode, header, checksum: checksum, delimited: m["delimiter"] != nil, sized: m["size"] != nil)
        }
        // An error kept above is thrown again for the caller, which says each error once.
        guard errors.count == errorsBefore, let magic else {
            throw errors.last ?? v.error("framing: not read")
        }
        var format = FrameFormat(
            name: name, magic: magic, header: header, lengthCounts: counts, checksum: checksum,
            delimiting: delimiting, end: end, maxLength: maxLength, size: sized?.size,
            lengthAdjust: sized?.adjust ?? 0, preamble: preamble, more: more)
        format.sequences = sequences ?? SequenceScopes()
        format.encryptedFlag = encryptedFlag
        format.spansValues = spansValues
        return .frames(format)
    }

    /// What a frame variant's header must hold: one length (none needed when frames are delimited or
    /// of a fixed size), at most one command, sequence and flags, fragment fields together.
    private func headerRules(
        _ headerNode: YAMLValue, _ header: [FrameFormat.HeaderField], checksum: FrameFormat.Checksum?,
        delimited: Bool, sized: Bool
    ) throws(DefinitionError) {
        let roles = header.flatMap(\.roles)
        let lengths = roles.filter { $0 == .length }.count
        let commands = roles.filter { $0 == .command }.count
        // A delimited frame's end says its length: a length field is then optional.
        // A frame with no command field (Meshtastic's stream) is command 0: its messages say `id: 0`.
        // A frame of a fixed size has none.
        guard lengths == 1 || ((delimited || sized) && lengths == 0), commands <= 1 else {
            throw headerNode.error(
                "framing header: expected at most one command and \(!delimited && !sized ? "exactly one" : "at most one") length field, found \(commands) and \(lengths)"
            )
        }
        for role in [FrameFormat.BitField.Role.sequence, .flags] where roles.filter({ $0 == role }).count > 1 {
            throw headerNode.error(
                "framing header: \(role.rawValue) is given twice (a byte of its own, or bits of a word)")
        }
        let fragmentFields = header.filter { $0 == .fragmentCount || $0 == .fragmentIndex }.count
        if fragmentFields == 1 {
            throw headerNode.error("framing header: fragment-count and fragment-index go together")
        }
        if fragmentFields == 2, let c = checksum, c.covers != .payload {
            throw headerNode.error(
                "framing: a message sent in several frames is checked over its joined payload; use checksum covers: payload"
            )
        }
    }

    /// 1 to 4 bytes, or `none`: frames that begin with their header (a length first, as Pebble's).
    private func magicBytes(_ v: YAMLValue) throws(DefinitionError) -> [UInt8] {
        if v.isScalar, try v.string("framing magic") == "none" { return [] }
        return try markBytes(v, "framing magic")
    }

    /// Bytes after the checksum that end every frame; a delimited framing has its own end.
    private func endBytes(_ v: YAMLValue, delimited: Bool) throws(DefinitionError) -> [UInt8] {
        guard !delimited else { throw v.error("framing end: a delimited framing ends with its delimiter's end byte") }
        return try markBytes(v, "framing end")
    }

    /// 1 to 4 bytes: `0xa5`, `0x55aa` or a list `[0x55, 0xaa]`.
    private func markBytes(_ v: YAMLValue, _ what: String) throws(DefinitionError) -> [UInt8] {
        var bytes: [UInt8] = []
        if v.isSequence {
            for item in try v.items(what) {
                bytes.append(UInt8(try integer(item, what, in: 0...255)))
            }
        } else {
            let text = try v.string(what).lowercased()
            let hex = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
            guard let b = Hex.bytes(hex.count % 2 == 1 ? "0" + hex : hex) else {
                throw v.error(
                    "\(what): '\(text)' is not hex bytes (0xa5, 0x55aa or a list)\(what == "framing magic" ? " nor none" : "")"
                )
            }
            bytes = b
        }
        guard (1...4).contains(bytes.count) else {
            throw v.error("\(what): expected 1 to 4 bytes, found \(bytes.count)")
        }
        return bytes
    }

    private func headerField(_ v: YAMLValue) throws(DefinitionError) -> FrameFormat.HeaderField {
        let expected =
            "expected version, command, sequence, flags, length, fragment-count, fragment-index, {command: u2le}, {length: u2be}, {reserved: N} or {word: u2le, fields: {length: 0x03ff}}"
        if v.isScalar {
            switch try v.string("framing header") {
            case "fragment-count": return .fragmentCount
            case "fragment-index": return .fragmentIndex
            case "version": return .version
            case "command": return .command(width: 1, bigEndian: true)
            case "sequence": return .sequence
            case "flags": return .flags
            case "length": return .length(width: 1, bigEndian: true)
            case let other: throw v.error("framing header: unknown field '\(other)'; \(expected)")
            }
        }
        let m = try v.mapping("framing header")
        if m.contains(where: { $0.key == "word" }) { return try bitWord(v) }
        guard m.count == 1, let (key, value) = m.first else { throw v.error("framing header: \(expected)") }
        if key == "reserved" { return .reserved(Int(try integer(value, "framing header reserved", in: 1...16))) }
        let width: (Int, Bool)
        switch try value.string("framing header \(key)") {
        case "u1": width = (1, true)
        case "u2le": width = (2, false)
        case "u2be": width = (2, true)
        case "u4le" where key == "length": width = (4, false)
        case "u4be" where key == "length": width = (4, true)
        case let other:
            let widths = key == "length" ? "u1, u2le, u2be, u4le or u4be" : "u1, u2le or u2be"
            throw value.error("framing header \(key): '\(other)'; expected \(widths)")
        }
        switch key {
        case "command": return .command(width: width.0, bigEndian: width.1)
        case "length": return .length(width: width.0, bigEndian: width.1)
        default: throw v.error("framing header: unknown field '\(key)'; \(expected)")
        }
    }

    // MARK: messages

    mutating func message(_ v: YAMLValue, existing: [DefinitionDissector.MessageDef]) throws(DefinitionError)
        -> (DefinitionDissector.MessageDef, response: YAMLValue?)
    {
        let m = try v.fields(
            "a message", allowed: ["id", "name", "from", "kind", "response", "seq", "doc", "encrypted"])
        let msgName = try identifier(m.required("name", "a message"), "message name")
        let id = try m["id"].map { i throws(DefinitionError) in
            UInt16(try integer(i, "message \(msgName) id", in: 0...0xffff))
        }
        var from: Direction?
        if let f = m["from"] {
            switch try f.string("message \(msgName) from") {
            case "phone": from = .sent
            case "accessory": from = .received
            case let other: throw f.error("message \(msgName) from: '\(other)'; expected phone or accessory")
            }
        }
        var kind: MessageKind?
        if let k = m["kind"] {
            let text = try k.string("message \(msgName) kind")
            guard let value = MessageKind(rawValue: text) else {
                throw k.error("message \(msgName) kind: '\(text)'; expected request, response or event")
            }
            kind = value
        }
        let nameClash = existing.first(where: { $0.name == msgName })
            .map { v.error("message name '\(msgName)' is already used at line \($0.line ?? 0)") }
        if let id,
            let other = existing.first(where: { $0.id == id && ($0.from == nil || from == nil || $0.from == from) })
        {
            // Both are said: the name clash is kept, the id clash thrown.
            if let nameClash, !errors.contains(nameClash) { errors.append(nameClash) }
            throw v.error(
                "duplicate command id \(Hex.value(id, width: 2)): '\(msgName)' and '\(other.name)' (line \(other.line ?? 0))"
                    + " both decode it; give them different 'from:' if the id means different things each way")
        }
        if let nameClash { throw nameClash }
        let fields = try m["seq"].map { s throws(DefinitionError) in try seq(s, "message \(msgName)", known: []) } ?? []
        try bound(fields, msgName, v)
        var def = DefinitionDissector.MessageDef(
            id: id, name: msgName, from: from, kind: kind, fields: fields, line: v.line)
        def.encrypted =
            try m["encrypted"].map { e throws(DefinitionError) in try encrypted(e, msgName, seq: m["seq"]) }
            ?? false
        return (def, m["response"])
    }

    /// The response's command id; nil when it names a message whose own error is already said.
    func responseId(_ v: YAMLValue, _ messages: [DefinitionDissector.MessageDef]) throws(DefinitionError) -> UInt16? {
        let text = try v.string("response")
        if YAMLValue.parseInteger(text) != nil { return UInt16(try integer(v, "response", in: 0...0xffff)) }
        guard let target = messages.first(where: { $0.name == text }), let id = target.id else {
            if broken.contains(text) { return nil }
            throw v.error("response: '\(text)' is not a message with an id in this definition")
        }
        return id
    }

    // MARK: bindings

    /// The bindings; with `devices:`, the characteristic bindings hold on those devices only.
    mutating func bind(_ v: YAMLValue?, messages: [DefinitionDissector.MessageDef], defaultFraming: Framing)
        -> ([DissectorBinding], [BluetoothUUID: Int])
    {
        guard let v,
            let m = attempt({ _ in
                try v.fields(
                    "bind", allowed: ["characteristics", "ea-protocols", "rfcomm-services", "psms", "devices"])
            })
        else { return ([], [:]) }
        var out: [DissectorBinding] = []
        var valueMessages: [BluetoothUUID: Int] = [:]
        let file = file
        func source(_ n: YAMLValue) -> String { "\(file):\(n.line ?? 0)" }
        func add(_ b: DissectorBinding, _ at: YAMLValue) throws(DefinitionError) {
            if out.contains(where: { $0.key == b.key }) { throw at.error("bind: \(b.key) is listed twice") }
            out.append(b)
        }
        let devices = m["devices"].flatMap { d in attempt { p in try p.devices(d) } }
        for c in m["characteristics"].flatMap({ c in attempt { _ in try c.items("bind characteristics") } }) ?? [] {
            attempt { p in
                if c.isScalar {
                    return try add(
                        DissectorBinding(
                            .characteristic(try Self.uuid(c, "characteristic")), source: source(c), devices: devices), c
                    )
                }
                let f = try c.fields(
                    "a characteristic binding", allowed: ["uuid", "role", "framing", "message", "override"])
                let uuid = try Self.uuid(f.required("uuid", "a characteristic binding"), "characteristic uuid")
                let role = try f["role"].map(Self.role) ?? .value
                let framing = try f["framing"].map { fr throws(DefinitionError) in try p.framing(fr) }
                if let msg = f["message"] {
                    let msgName = try msg.string("message")
                    if let index = messages.firstIndex(where: { $0.name == msgName }) {
                        valueMessages[uuid] = index
                    } else if !p.broken.contains(msgName) {
                        throw msg.error("characteristic \(uuid): message '\(msgName)' is not defined under messages:")
                    }
                } else if case .values(false, _) = framing ?? defaultFraming {
                    throw c.error("characteristic \(uuid): framing 'value' needs 'message:' (the message its value is)")
                }
                try add(
                    DissectorBinding(
                        .characteristic(uuid), role: role, framing: framing,
                        overrides: try f["override"]?.bool("override") ?? false, source: source(c), devices: devices), c
                )
            }
        }
        for p in m["ea-protocols"].flatMap({ e in attempt { _ in try e.items("bind ea-protocols") } }) ?? [] {
            attempt { _ in try add(DissectorBinding(.eaProtocol(try p.string("EA protocol")), source: source(p)), p) }
        }
        for r in m["rfcomm-services"].flatMap({ e in attempt { _ in try e.items("bind rfcomm-services") } }) ?? [] {
            attempt { _ in
                try add(DissectorBinding(.rfcommService(try Self.uuid(r, "RFCOMM service")), source: source(r)), r)
            }
        }
        for n in m["psms"].flatMap({ e in attempt { _ in try e.items("bind psms") } }) ?? [] {
            attempt { _ in
                let psm = try n.integer("PSM")
                guard (0x0001...0xffff).contains(psm) else { throw n.error("psms: \(psm) is not a PSM (1 to 0xFFFF)") }
                try add(DissectorBinding(.l2capPSM(UInt16(psm)), source: source(n), devices: devices), n)
            }
        }
        if let d = m["devices"], let devices {
            // Detected A5 streams on these devices (captures that begin after discovery) are this protocol's too.
            for prefix in devices.addressPrefixes {
                attempt { _ in try add(DissectorBinding(.addressPrefix(prefix), source: source(d)), d) }
            }
            for name in devices.names {
                attempt { _ in try add(DissectorBinding(.advertisedName(name), source: source(d)), d) }
            }
        }
        return (out, valueMessages)
    }

    /// A characteristic binding's `role:`.
    static func role(_ r: YAMLValue) throws(DefinitionError) -> DissectorBinding.Role {
        let text = try r.string("role")
        guard let value = DissectorBinding.Role(rawValue: text) else {
            throw r.error("role: '\(text)'; expected command, event or value")
        }
        return value
    }

    /// `devices: [AA:BB:CC]` (address prefixes), or `{addresses: [...], names: [...]}` (advertised-name prefixes).
    func devices(_ d: YAMLValue) throws(DefinitionError) -> DeviceMatch {
        var addresses: [YAMLValue] = []
        var names: [String] = []
        if d.isSequence {
            addresses = try d.items("bind devices")
        } else {
            let m = try d.fields("bind devices", allowed: ["addresses", "names"])
            addresses = try m["addresses"]?.items("bind devices addresses") ?? []
            for n in try m["names"]?.items("bind devices names") ?? [] {
                let name = try n.string("device name")
                guard !name.isEmpty else { throw n.error("devices names: an empty name would match every device") }
                names.append(name)
            }
        }
        var prefixes: [String] = []
        for a in addresses {
            let prefix = try a.string("device address prefix").uppercased()
            let octets = prefix.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...6).contains(octets.count), octets.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil })
            else {
                throw a.error("devices: '\(prefix)' is not an address prefix (AA:BB:CC)")
            }
            prefixes.append(prefix)
        }
        guard !prefixes.isEmpty || !names.isEmpty else {
            throw d.error("devices: expected address prefixes or names, found none")
        }
        return DeviceMatch(addressPrefixes: prefixes, names: names)
    }

    // MARK: pairing

    func pairingRule(
        _ v: YAMLValue, table: [UInt16: UInt16], messages: [DefinitionDissector.MessageDef]
    ) throws(DefinitionError) -> PairingRule {
        let m = try v.fields("pairing", allowed: ["match", "response-command", "timeout-ms"])
        var match = PairingRule.Match.oldest
        var path: [String] = []
        if let x = m["match"], x.isMapping {
            (match, path) = try tokenMatch(x, messages: messages)
        } else if let x = m["match"] {
            let text = try x.string("pairing match")
            guard let value = PairingRule.Match(rawValue: text) else {
                throw x.error("pairing match: '\(text)'; expected sequence, oldest, {field: NAME} or {echo: NAME}")
            }
            guard value != .field, value != .echo else {
                throw x.error("pairing match: \(text) names its field: {\(text): NAME}")
            }
            match = value
        }
        // An echo's response (Nordic DFU's 0x60) is one command for every request.
        var response: PairingRule.ResponseCommand = table.isEmpty ? (match == .echo ? .any : .same) : .table(table)
        if let r = m["response-command"] { response = try responseCommand(r, table: table) }
        let timeout =
            try m["timeout-ms"].map { t throws(DefinitionError) in
                try integer(t, "pairing timeout-ms", in: 1...3_600_000)
            } ?? 1000
        var rule = PairingRule(match: match, responseCommand: response, timeoutMicroseconds: timeout * 1000)
        rule.path = path
        return rule
    }

    /// `same`, `any`, `table`, `request | 0x80`, `request + 1`.
    private func responseCommand(_ v: YAMLValue, table: [UInt16: UInt16]) throws(DefinitionError)
        -> PairingRule.ResponseCommand
    {
        let text = try v.string("pairing response-command").replacingOccurrences(of: " ", with: "")
        switch text {
        case "same": return .same
        case "any": return .any
        case "table":
            guard !table.isEmpty else {
                throw v.error("pairing response-command: table, but no message names a 'response:'")
            }
            return .table(table)
        default:
            for (op, make) in [
                ("request|", PairingRule.ResponseCommand.or), ("request+", PairingRule.ResponseCommand.plus),
            ] where text.hasPrefix(op) {
                if let n = YAMLValue.parseInteger(String(text.dropFirst(op.count))), (1...0xffff).contains(n) {
                    return make(UInt16(n))
                }
            }
            throw v.error(
                "pairing response-command: '\(text)'; expected same, any, table, 'request | 0x80' or 'request + 1'")
        }
    }

    // MARK: examples

    mutating func examples(_ v: YAMLValue) -> [DefinitionDissector.Example] {
        attempt { _ in try v.items("examples") }?.compactMap { item in attempt { p in try p.example(item) } } ?? []
    }

    private func example(_ item: YAMLValue) throws(DefinitionError) -> DefinitionDissector.Example {
        let m = try item.fields("an example", allowed: ["hex", "from", "characteristic", "expect"])
        let hexNode = try m.required("hex", "an example")
        guard let bytes = Hex.bytes(try hexNode.string("example hex")) else {
            throw hexNode.error("example hex: not hex bytes")
        }
        var direction = Direction.sent
        if let f = m["from"] {
            switch try f.string("example from") {
            case "phone": direction = .sent
            case "accessory": direction = .received
            case let other: throw f.error("example from: '\(other)'; expected phone or accessory")
            }
        }
        let characteristic = try m["characteristic"].map { c throws(DefinitionError) in
            try Self.uuid(c, "example characteristic")
        }
        var example = DefinitionDissector.Example(
            bytes: bytes, direction: direction, characteristic: characteristic,
            expectedName: nil, expectedFields: [], expectedFlags: nil, line: item.line)
        if let e = m["expect"] {
            let x = try e.fields("example expect", allowed: ["name", "fields", "flags"])
            example.expectedName = try x["name"]?.string("example expect name")
            example.expectedFields = try x["fields"].map { f throws(DefinitionError) in try expectations(f) } ?? []
            if let fl = x["flags"] {
                var names: [String] = []
                for n in try fl.items("example expect flags") { names.append(try n.string("flag")) }
                example.expectedFlags = names
            }
        }
        return example
    }

    private func expectations(_ v: YAMLValue) throws(DefinitionError) -> [(String, YAMLExpectation)] {
        var out: [(String, YAMLExpectation)] = []
        for (k, value) in try v.mapping("example fields") {
            out.append(
                (k, value.isMapping ? .group(try expectations(value)) : .scalar(try value.string("example field \(k)")))
            )
        }
        return out
    }
}
