import BTLensCore

/// One line of HFP/HSP's AT dialogue (HFP 1.9 §4.34, ITU-T V.250 §5): a command from the
/// hands-free unit (`AT+BRSF=…`), a response from the audio gateway (`+CIND: …`) or a final
/// result code (`OK`, `ERROR`, `+CME ERROR: 30`).
enum ATCommand {
    /// Final and unsolicited result codes that are a whole line by themselves (V.250 §5.7.1).
    static let resultCodes: Set<String> = [
        "OK", "ERROR", "RING", "NO CARRIER", "BUSY", "NO ANSWER", "DELAYED", "BLACKLISTED", "CONNECT",
        "NO DIALTONE",
    ]

    /// The line as an `hfp` message; `line` holds it as sent, without its terminator.
    static func message(_ line: String) -> ProfileMessage {
        var fields: [(String, FieldValue)] = [("line", .string(line))]
        let upper = line.uppercased()
        if upper.hasPrefix("AT") {
            let body = String(line.dropFirst(2))
            let (command, form, arguments) = split(command: body)
            fields += [("kind", .string("command")), ("command", .string(command)), ("form", .string(form))]
            if let arguments { fields.append(("arguments", .string(arguments))) }
            fields += meaning(command, arguments, fromGateway: false)
            return ProfileMessage(.hfp, "AT" + command, fields)
        }
        if resultCodes.contains(upper) {
            fields.append(("kind", .string("result")))
            return ProfileMessage(.hfp, upper, fields)
        }
        if line.hasPrefix("+"), let colon = line.firstIndex(of: ":") {
            let command = String(line[..<colon]).uppercased()
            let arguments = line[line.index(after: colon)...].drop { $0 == " " }
            fields += [("kind", .string("response")), ("command", .string(command))]
            fields.append(("arguments", .string(String(arguments))))
            fields += meaning(command, String(arguments), fromGateway: true)
            return ProfileMessage(.hfp, command, fields)
        }
        fields.append(("kind", .string("other")))
        return ProfileMessage(.hfp, "Line", fields)
    }

    /// `+BRSF=155` → ("+BRSF", "set", "155"); `+CIND=?` test; `+CIND?` read; `A` or `+CHUP` action.
    /// Basic commands (`D1234;`, `A`) keep their letter as the command and the rest as arguments.
    private static func split(command body: String) -> (String, String, String?) {
        guard body.hasPrefix("+") || body.hasPrefix("%") || body.hasPrefix("*") else {
            guard let first = body.first else { return ("", "action", nil) }
            let rest = String(body.dropFirst())
            return (String(first).uppercased(), "action", rest.isEmpty ? nil : rest)
        }
        if body.hasSuffix("=?") { return (body.dropLast(2).uppercased(), "test", nil) }
        if body.hasSuffix("?") { return (body.dropLast().uppercased(), "read", nil) }
        if let equals = body.firstIndex(of: "=") {
            return (body[..<equals].uppercased(), "set", String(body[body.index(after: equals)...]))
        }
        return (body.uppercased(), "action", nil)
    }

    /// What HFP says a command's arguments mean, where btlens reads them: supported features, codec
    /// negotiation, gains and extended errors.
    private static func meaning(_ command: String, _ arguments: String?, fromGateway: Bool) -> [(String, FieldValue)] {
        guard let arguments else { return [] }
        let numbers = arguments.split(separator: ",").map { Int($0.filter { $0 != " " }) }
        switch command {
        case "+BRSF":
            guard let bits = numbers.first ?? nil else { return [] }
            let names = fromGateway ? gatewayFeatures : handsFreeFeatures
            let set = names.indices.filter { bits >> $0 & 1 == 1 }.map { names[$0] }
            return [("features", .string(set.joined(separator: ", ")))]
        case "+BAC":
            return [("codecs", .string(numbers.map { codecName($0) }.joined(separator: ", ")))]
        case "+BCS":
            guard let id = numbers.first ?? nil else { return [] }
            return [("codec", .string(codecName(id)))]
        case "+VGS", "+VGM":
            guard let gain = numbers.first ?? nil else { return [] }
            return [("gain", .int(gain))]
        case "+CME ERROR":
            guard let code = numbers.first ?? nil else { return [] }
            return [("error", .int(code))]
        default:
            return []
        }
    }

    /// HFP codec ids (HFP 1.9 §10, Assigned Numbers §6.12).
    static func codecName(_ id: Int?) -> String {
        switch id {
        case 1?: return "CVSD"
        case 2?: return "mSBC"
        case 3?: return "LC3-SWB"
        case let n?: return "codec \(n)"
        case nil: return "?"
        }
    }

    /// AT+BRSF bits, bit 0 first (HFP 1.9 §4.34.1).
    static let handsFreeFeatures = [
        "EC/NR", "three-way calling", "CLI presentation", "voice recognition", "remote volume control",
        "enhanced call status", "enhanced call control", "codec negotiation", "HF indicators", "eSCO S4",
        "enhanced voice recognition status", "voice recognition text", "super wide band",
    ]
    /// +BRSF bits, bit 0 first (HFP 1.9 §4.34.1).
    static let gatewayFeatures = [
        "three-way calling", "EC/NR", "voice recognition", "in-band ring tone", "voice tag", "reject a call",
        "enhanced call status", "enhanced call control", "extended error result codes", "codec negotiation",
        "HF indicators", "eSCO S4", "enhanced voice recognition status", "voice recognition text",
        "super wide band",
    ]
}
