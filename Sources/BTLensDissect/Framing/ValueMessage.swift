import BTLensCore

/// A message that is one whole value (`framing: value` or `event-byte`): its event byte first where
/// it has one, then its payload, then its checksum where it has one (Govee's xor8 ends its 20
/// bytes). The checksum covers the value before it (`covers: frame`) or the payload alone.
public enum ValueMessage {
    public enum Outcome: Sendable {
        case frame(Frame)
        /// Too short for its event byte and checksum.
        case short(Diagnostic)
    }

    /// The value as a frame, its checksum read and computed; a diagnostic when it is too short to
    /// hold its event byte and checksum.
    public static func frame(
        _ value: some Collection<UInt8>, commandByte: Bool, checksum: FrameFormat.Checksum?
    ) -> Outcome {
        let bytes = Array(value)
        let head = commandByte ? 1 : 0
        let trailer = checksum?.algorithm.width ?? 0
        guard bytes.count >= head + trailer else {
            let what = trailer > 0 ? "a \(trailer)-byte checksum" : "its payload"
            let needed = head + trailer
            return .short(
                Diagnostic(
                    DissectorDiagnostics.payloadShort,
                    (bytes.isEmpty ? "an empty value" : "a value of \(bytes.count) bytes")
                        + " where \(commandByte ? "an event byte and " : "")\(what) were expected",
                    fields: [("offset", .int(0)), ("needed", .int(needed)), ("available", .int(bytes.count))]))
        }
        let end = bytes.count - trailer
        var actual: UInt32?
        var expected: UInt32?
        if let c = checksum {
            actual = UInt32(FrameFormat.integer(bytes, at: end, width: trailer, bigEndian: c.bigEndian))
            expected = c.algorithm.compute(bytes[(c.covers == .payload ? head : 0)..<end])
        }
        return .frame(
            Frame(
                version: nil, command: commandByte ? UInt16(bytes[0]) : 0, sequence: nil, flags: nil,
                payload: Array(bytes[head..<end]), checksum: actual, expectedChecksum: expected,
                length: bytes.count))
    }
}

extension FramingDiagnostics {
    /// A frame's or value's checksum that differs from the one computed over its bytes; `command`
    /// nil for a whole value with no event byte.
    public static func badChecksum(
        command: UInt16?, sequence: UInt8?, actual: UInt32, expected: UInt32, width: Int
    ) -> Diagnostic {
        var fields: [(String, FieldValue)] = [("expected", .int(expected)), ("actual", .int(actual))]
        if let sequence { fields.append(("sequence", .int(sequence))) }
        if let command { fields.append(("command", .int(command))) }
        let digits = 2 * width
        let what = command.map { "command \(Hex.value($0, width: 2))" } ?? "value"
        return Diagnostic(
            checksumBad,
            "\(what)\(sequence.map { " sequence \($0)" } ?? ""): checksum \(Hex.value(actual, width: digits)), expected \(Hex.value(expected, width: digits))",
            fields: fields)
    }
}

extension FrameFormat {
    /// The integer of `width` bytes at `offset` of `bytes`.
    static func integer(_ bytes: [UInt8], at offset: Int, width: Int, bigEndian: Bool) -> Int {
        var value = 0
        for i in 0..<width { value = value << 8 | Int(bytes[offset + (bigEndian ? i : width - 1 - i)]) }
        return value
    }
}
