import BTLensCore
import BTLensDissect

/// A frame variant's `preamble`: bytes a stream sends once before its first frame (Chsmartbulb's
/// 8-byte text), as text (`BT-READY`), hex (`0x0d0a`) or a list of bytes.
extension DefinitionParser.Parser {
    func preamble(_ v: YAMLValue) throws(DefinitionError) -> [UInt8] {
        let what = "framing preamble"
        var bytes: [UInt8] = []
        if v.isSequence {
            for item in try v.items(what) { bytes.append(UInt8(try integer(item, what, in: 0...255))) }
        } else {
            let text = try v.string(what)
            let hex = text.lowercased().hasPrefix("0x") ? Hex.bytes(String(text.dropFirst(2))) : nil
            bytes = hex ?? Array(text.utf8)
        }
        guard (1...64).contains(bytes.count) else {
            throw v.error("\(what): expected 1 to 64 bytes, found \(bytes.count)")
        }
        return bytes
    }
}
