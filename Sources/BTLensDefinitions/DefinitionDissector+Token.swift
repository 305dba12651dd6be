import BTLensCore
import BTLensDissect

extension DefinitionDissector {
    /// The value at the pairing rule's path (`body.2`), as text: an integer by its number (an
    /// enum's raw value too), text as it is, anything else as shown.
    public func pairingToken(_ message: Message) -> String? {
        guard let path = pairing?.path, let first = path.first else { return nil }
        var whole = message
        whole.wantsFields = true
        var value = decode(whole).fields.first { $0.name == first }?.value
        for name in path.dropFirst() {
            guard case .group(let fields)? = value else { return nil }
            value = fields.first { $0.name == name }?.value
        }
        switch value {
        case nil: return nil
        case .int(let i)?: return String(i)
        case .uint(let u)?: return String(u)
        case .enumerated(_, let raw)?: return String(raw)
        case .string(let s)?: return s
        case let v?: return v.description
        }
    }
}
