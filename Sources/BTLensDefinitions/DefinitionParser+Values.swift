import BTLensCore
import BTLensDissect

/// A whole-value framing with a checksum at the value's end:
/// `{value: event-byte, checksum: {algorithm: xor8, covers: value}}` (Govee's 20-byte values).
extension DefinitionParser.Parser {
    func valueFraming(_ v: YAMLValue) throws(DefinitionError) -> Framing {
        let m = try v.fields("framing", allowed: ["value", "checksum"])
        let kind = try m.required("value", "framing")
        let commandByte: Bool
        switch try kind.string("framing value") {
        case "whole": commandByte = false
        case "event-byte": commandByte = true
        case let other: throw kind.error("framing value: '\(other)'; expected whole or event-byte")
        }
        guard let c = m["checksum"] else {
            throw v.error("framing: a value framing without a checksum is written value or event-byte")
        }
        return .values(commandByte: commandByte, checksum: try valueChecksum(c))
    }

    /// `covers`: `value` (every byte before the checksum, the default) or `payload` (after the event byte).
    private func valueChecksum(_ v: YAMLValue) throws(DefinitionError) -> FrameFormat.Checksum? {
        if v.isScalar { return try checksumAlgorithm(v).map { FrameFormat.Checksum($0) } }
        let m = try v.fields("framing checksum", allowed: ["algorithm", "covers", "endian"])
        guard let alg = try checksumAlgorithm(m.required("algorithm", "framing checksum")) else { return nil }
        var c = FrameFormat.Checksum(alg, bigEndian: try m["endian"].map(checksumEndian) ?? true)
        if let cov = m["covers"] {
            switch try cov.string("framing checksum covers") {
            case "value": c.covers = .frame
            case "payload": c.covers = .payload
            case let other:
                throw cov.error("framing checksum covers: '\(other)'; expected value or payload for a value framing")
            }
        }
        return c
    }
}
