import BTLensCore
import BTLensDissect

/// Replays a definition's examples: each hex message must frame whole, decode without problems,
/// and give the names and values the example expects.
public enum ExampleReplay {
    public static func check(_ d: DefinitionDissector) -> [DefinitionError] {
        d.examples.compactMap { e in
            mismatch(e, d).map { DefinitionError(file: d.origin, line: e.line, "example: \($0)") }
        }
    }

    private static func mismatch(_ e: DefinitionDissector.Example, _ d: DefinitionDissector) -> String? {
        let framing =
            e.characteristic.flatMap { uuid in d.bindings.first { $0.key == .characteristic(uuid) }?.framing }
            ?? d.framing
        let message: Message
        switch framing {
        case .frames(let format):
            // Through the same stream as a capture's bytes, so a message sent in several frames replays too.
            var stream = FramedStream(format: format, detect: false)
            let out = stream.push(e.bytes[...]) + stream.finish(reason: "the end of the example")
            var frames: [Frame] = []
            for o in out {
                switch o {
                case .frame(let f): frames.append(f)
                // An example may begin with the framing's preamble, as its stream does.
                case .diagnostic(let d) where d.id == FramingDiagnostics.preamble.id: continue
                case .diagnostic(let d): return "\(d.id): \(d.message)"
                }
            }
            guard frames.count == 1, let frame = frames.first else {
                return "\(frames.count) \(format.name) frames; expected one message"
            }
            message = Message(
                command: frame.command, flags: frame.flags, payload: frame.payload, direction: e.direction,
                characteristic: e.characteristic)
        case .values(let commandByte, let checksum):
            switch ValueMessage.frame(e.bytes, commandByte: commandByte, checksum: checksum) {
            case .short(let d): return "\(d.id): \(d.message)"
            case .frame(let frame):
                if frame.checksum != frame.expectedChecksum, let actual = frame.checksum,
                    let expected = frame.expectedChecksum
                {
                    let d = FramingDiagnostics.badChecksum(
                        command: commandByte ? frame.command : nil, sequence: nil, actual: actual, expected: expected,
                        width: checksum?.algorithm.width ?? 1)
                    return "\(d.id): \(d.message)"
                }
                message = Message(
                    command: commandByte ? frame.command : nil, flags: nil, payload: frame.payload,
                    direction: e.direction, characteristic: e.characteristic)
            }
        }
        let decoded = d.decode(message)
        if let problem = decoded.problems.first { return "\(problem.id): \(problem.message)" }
        if let name = e.expectedName, decoded.name != name {
            return "decoded as \(decoded.name ?? "no message"), expected \(name)"
        }
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
