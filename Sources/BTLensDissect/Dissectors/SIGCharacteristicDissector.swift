import BTLensCore

/// A built-in Swift dissector: SIG characteristics whose value is one message (GATT Specification
/// Supplement): Battery Level 0x2A19 (uint8, percent) and Firmware Revision String 0x2A26 (UTF-8).
/// A definition file may take these characteristics over with `override: true`, on its own devices only.
public struct SIGCharacteristicDissector: MessageDissector {
    public let name = "sig-characteristics"
    public let origin = "built-in"
    public let framing = Framing.values(commandByte: false)
    public let pairing: PairingRule? = nil
    public var bindings: [DissectorBinding] {
        [DissectorBinding(.characteristic(.bit16(0x2a19))), DissectorBinding(.characteristic(.bit16(0x2a26)))]
    }

    public init() {}

    public func decode(_ message: Message) -> DecodedMessage {
        switch message.characteristic?.sig16 {
        case 0x2a19:
            guard let level = message.payload.first else { return short("BatteryLevel", "level", 1) }
            var out = DecodedMessage(
                name: "BatteryLevel", fields: [MessageField("level", .measure(Double(level), unit: "%"))])
            if level > 100 {
                out.problems.append(
                    Diagnostic(
                        DissectorDiagnostics.fieldInvalid, "BatteryLevel: level \(level); expected 0…100",
                        fields: [("field", .string("level")), ("value", .int(level))]))
            }
            if message.payload.count > 1 { out.problems.append(extra("BatteryLevel", message.payload.count - 1)) }
            return out
        case 0x2a26:
            return DecodedMessage(
                name: "FirmwareRevision",
                fields: [MessageField("revision", .string(String(decoding: message.payload, as: UTF8.self)))])
        default:
            return DecodedMessage()
        }
    }

    private func short(_ name: String, _ field: String, _ need: Int) -> DecodedMessage {
        DecodedMessage(
            name: name,
            problems: [
                Diagnostic(
                    DissectorDiagnostics.payloadShort,
                    "\(name): field \(field) needs \(need) byte at payload offset 0, 0 left",
                    fields: [("field", .string(field)), ("offset", .int(0))])
            ])
    }

    private func extra(_ name: String, _ n: Int) -> Diagnostic {
        Diagnostic(
            DissectorDiagnostics.payloadExtra, "\(name): \(n) byte\(n == 1 ? "" : "s") after the last field",
            fields: [("extra_bytes", .int(n))])
    }
}
