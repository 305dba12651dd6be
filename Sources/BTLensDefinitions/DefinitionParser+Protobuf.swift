import BTLensCore

/// `protobufs:`, the Protocol Buffers messages a definition reads by schema, and `{protobuf: Name}`
/// fields. Written as a `.proto` file says them (protobuf.dev, "Language Guide (proto 3)"): a
/// field number, a name, a type, `repeated`.
extension DefinitionParser.Parser {
    static let protobufFieldKeys = ["id", "type", "enum", "message", "repeated", "doc"]

    /// Every message of `protobufs:`; a message field must name one of them.
    mutating func protobufs(_ v: YAMLValue) throws(DefinitionError) {
        var messages: [String: [UInt64: ProtobufSchemas.Field]] = [:]
        var references: [(node: YAMLValue, name: String)] = []
        for (name, fields) in try v.mapping("protobufs") {
            let parsed = attempt { p in try p.protobufMessage(name, fields) }
            guard let (table, refs) = parsed else {
                broken.insert(name)
                continue
            }
            messages[name] = table
            references += refs
        }
        for (node, name) in references where messages[name] == nil {
            errors.append(
                node.error(
                    "protobuf message '\(name)' is not defined under protobufs: (defined: \(messages.keys.sorted().joined(separator: ", ")))"
                ))
        }
        protobufSchemas = ProtobufSchemas(messages)
    }

    private func protobufMessage(_ name: String, _ v: YAMLValue) throws(DefinitionError) -> (
        [UInt64: ProtobufSchemas.Field], [(node: YAMLValue, name: String)]
    ) {
        let what = "protobuf \(name)"
        var table: [UInt64: ProtobufSchemas.Field] = [:]
        var names: Set<String> = []
        var references: [(node: YAMLValue, name: String)] = []
        for (key, field) in try v.mapping(what) {
            guard let number = YAMLValue.parseInteger(key), (1...536_870_911).contains(number) else {
                throw field.error("\(what): field number '\(key)'; expected 1 to 536870911")
            }
            let m = try field.fields("\(what) field \(number)", allowed: Self.protobufFieldKeys)
            let id = try identifier(m.required("id", "\(what) field \(number)"), "\(what) field id")
            guard names.insert(id).inserted else { throw field.error("\(what): field '\(id)' is defined twice") }
            let typeNode = try m.required("type", "\(what) field \(id)")
            let typeName = try typeNode.string("\(what) field \(id) type")
            guard let type = ProtobufSchemas.FieldType(rawValue: typeName) else {
                let all = ProtobufSchemas.FieldType.allCases.map(\.rawValue).joined(separator: " ")
                throw typeNode.error("\(what) field \(id): type '\(typeName)'; expected one of: \(all)")
            }
            var enumNames: EnumNames?
            if let e = m["enum"] {
                guard type == .enum else { throw e.error("\(what) field \(id): 'enum' applies to type enum only") }
                let enumName = try e.string("\(what) field \(id) enum")
                guard let values = enums[enumName] else {
                    throw e.error("\(what) field \(id): enum '\(enumName)' is not defined under enums:")
                }
                enumNames = EnumNames(values)
            }
            let message = try m["message"]?.string("\(what) field \(id) message")
            guard (type == .message) == (message != nil) else {
                throw field.error("\(what) field \(id): 'message' names the message of a field of type message")
            }
            if let message, let node = m["message"] { references.append((node, message)) }
            let repeated = try m["repeated"]?.bool("\(what) field \(id) repeated") ?? false
            table[UInt64(number)] = .init(
                name: id, type: type, repeated: repeated, enumNames: enumNames, message: message)
        }
        return (table, references)
    }

    /// `{protobuf: Name}`: nil for another mapping.
    func protobufType(_ t: YAMLValue, _ here: String, size: FieldSpec.Size?) throws(DefinitionError)
        -> FieldSpec.FieldType?
    {
        guard (try? t.mapping(""))?.contains(where: { $0.key == "protobuf" }) == true else { return nil }
        let m = try t.fields("\(here) type", allowed: ["protobuf"])
        let name = try m.required("protobuf", "\(here) type").string("\(here) protobuf")
        // Its error is said already; the definition is refused, so this field's type is not read.
        if broken.contains(name) { return .bytes(size ?? .eos) }
        guard let schemas = protobufSchemas, schemas.messages[name] != nil else {
            let defined = protobufSchemas?.messages.keys.sorted().joined(separator: ", ") ?? ""
            throw t.error("\(here): protobuf message '\(name)' is not defined under protobufs: (defined: \(defined))")
        }
        return .protobufSchema(schemas, message: name, size ?? .eos)
    }
}
