import BTLensCore

/// One stream (a characteristic or EA session, and a direction) with what decodes it: a framer, and
/// the dissector bound to it if any. A stream no dissector claims is framed as A5 once detected.
/// Where responses carry their request's sequence (`match: sequence`), the accessory's stream is
/// not checked for sequence gaps.
struct BoundStream {
    /// Nil when each value is one message.
    private var framed: A5Stream?
    let dissector: (any MessageDissector)?
    let commandByte: Bool
    /// The characteristic it belongs to, when discovery was captured.
    var uuid: BluetoothUUID?

    init(_ dissector: (any MessageDissector)?, framing: Framing?, detect: Bool, direction: Direction,
         messageLimit: Int = Limits().messageBytes) {
        self.dissector = dissector
        switch framing {
        case .values(let commandByte)?:
            framed = nil
            self.commandByte = commandByte
        case .frames(let format)?:
            let echoes = dissector?.pairing?.match == .sequence && direction == .received
            framed = A5Stream(format: format, detect: detect, tracksSequence: !echoes, messageLimit: messageLimit)
            commandByte = false
        case nil:
            framed = A5Stream()
            commandByte = false
        }
    }

    /// The frame format's name, or nil for one message per value.
    var framing: String? { framed?.format.name }

    mutating func push(_ value: ArraySlice<UInt8>) -> [A5Stream.Output] {
        guard framed != nil else {
            var payload = value
            let command = commandByte ? payload.popFirst().map(UInt16.init) : 0
            guard let command else {
                return [.diagnostic(Diagnostic(DissectorDiagnostics.payloadShort,
                                               "an empty value where an event byte and its payload were expected",
                                               fields: [("offset", .int(0)), ("needed", .int(1)), ("available", .int(0))]))]
            }
            return [.frame(A5Frame(version: nil, command: command, sequence: nil, flags: nil, payload: Array(payload),
                                   checksum: nil, expectedChecksum: nil, length: value.count))]
        }
        return framed?.push(value) ?? []
    }

    mutating func hole() -> [A5Stream.Output] { framed?.hole() ?? [] }

    mutating func finish(reason: String) -> [A5Stream.Output] { framed?.finish(reason: reason) ?? [] }
}
