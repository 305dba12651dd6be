import BTLensCore
import BTLensDissect

/// Replays a definition's examples: each hex message must frame whole, decode without problems,
/// and give the names and values the example expects.
public enum ExampleReplay {
    public static func check(_ d: DefinitionDissector) -> [DefinitionError] {
        d.examples.compactMap { e in mismatch(e, d).map { DefinitionError(file: d.origin, line: e.line, "example: \($0)") } }
    }

    private static func mismatch(_ e: DefinitionDissector.Example, _ d: DefinitionDissector) -> String? {
        let framing = e.characteristic.flatMap { uuid in d.bindings.first { $0.key == .characteristic(uuid) }?.framing } ?? d.framing
        let message: Message
        switch framing {
        case .frames(let format):
            var framer = MessageFramer(format: format)
            framer.append(e.bytes)
            guard let step = framer.next() else { return "the bytes do not hold a whole \(format.name) frame" }
            if step.skipped > 0 { return "\(step.skipped) bytes before the frame's magic" }
            if !step.frame.checksumOK {
                return "checksum \(Hex.value(step.frame.checksum ?? 0, width: 2)), expected \(Hex.value(step.frame.expectedChecksum ?? 0, width: 2))"
            }
            if framer.buffered > 0 { return "\(framer.buffered) bytes after the frame" }
            message = Message(command: step.frame.command, flags: step.frame.flags, payload: step.frame.payload,
                              direction: e.direction, characteristic: e.characteristic)
        case .values(let commandByte):
            var payload = e.bytes[...]
            let command = commandByte ? payload.popFirst().map(UInt16.init) : nil
            if commandByte && command == nil { return "no bytes: the event byte is missing" }
            message = Message(command: command, flags: nil, payload: Array(payload), direction: e.direction,
                              characteristic: e.characteristic)
        }
        let decoded = d.decode(message)
        if let problem = decoded.problems.first { return "\(problem.id): \(problem.message)" }
        if let name = e.expectedName, decoded.name != name { return "decoded as \(decoded.name ?? "no message"), expected \(name)" }
        if let flags = e.expectedFlags, flags != decoded.flagNames {
            return "flags [\(decoded.flagNames.joined(separator: ","))], expected [\(flags.joined(separator: ","))]"
        }
        for (name, expected) in e.expectedFields {
            guard let field = decoded.fields.first(where: { $0.name == name }) else {
                return "no field '\(name)' (decoded: \(MessageField.describe(decoded.fields)))"
            }
            if let m = expected.mismatch(field.value) { return "field \(name) is \(m)" }
        }
        return nil
    }
}
