import BTLensCore
import BTLensDissect

/// Encrypted payloads: a message's (`encrypted: true`), or a frame's by a flag bit
/// (`framing: encrypted: {flag: 0x01}`). Their bytes are shown, never decoded.
extension DefinitionParser.Parser {
    func encrypted(_ v: YAMLValue, _ message: String, seq: YAMLValue?) throws(DefinitionError) -> Bool {
        let text = try v.string("message \(message) encrypted")
        guard text == "true" || text == "false" else {
            throw v.error("message \(message) encrypted: '\(text)'; expected true or false")
        }
        if text == "true", seq != nil {
            throw v.error("message \(message): an encrypted payload is not decoded; remove its seq")
        }
        return text == "true"
    }

    func encryptedFlag(_ v: YAMLValue, header: [FrameFormat.HeaderField]) throws(DefinitionError) -> UInt8 {
        let m = try v.fields("framing encrypted", allowed: ["flag"])
        let flag = try m.required("flag", "framing encrypted")
        let mask = UInt8(try integer(flag, "framing encrypted flag", in: 1...255))
        guard header.contains(.flags) else {
            throw v.error("framing encrypted: the header has no flags field for the bit to be in")
        }
        return mask
    }
}
