import ArgumentParser
import BTLensDissect

extension DecodeAs: ExpressibleByArgument {
    /// Parses `0x0041=rfcomm` (or `att`, `sdp`, or a name a profile gives its channels: `avdtp`, `avctp`, …),
    /// `rfcomm:3=iap2`, `rfcomm:3=hfp`, `att:0x0025=DISSECTOR`, `psm:0x0080=DISSECTOR`.
    public init?(argument text: String) {
        let parts = text.split(separator: "=").map(String.init)
        guard parts.count == 2 else { return nil }
        if parts[0].lowercased().hasPrefix("att:"), !parts[1].isEmpty {
            let digits = parts[0].dropFirst(4).lowercased()
            guard let handle = UInt16(digits.hasPrefix("0x") ? String(digits.dropFirst(2)) : digits, radix: 16) else {
                return nil
            }
            self = .attHandle(handle, dissector: parts[1])
            return
        }
        if parts[0].lowercased().hasPrefix("psm:"), !parts[1].isEmpty {
            let digits = parts[0].dropFirst(4).lowercased()
            guard let psm = UInt16(digits.hasPrefix("0x") ? String(digits.dropFirst(2)) : digits, radix: 16) else {
                return nil
            }
            self = .psm(psm, dissector: parts[1])
            return
        }
        if parts[0].lowercased().hasPrefix("rfcomm:"), let ch = UInt8(parts[0].dropFirst(7)) {
            switch parts[1].lowercased() {
            case "iap2": self = .rfcommIAP2(channel: ch)
            case "hfp", "hsp", "at": self = .rfcommHFP(channel: ch)
            default: return nil
            }
            return
        }
        let cidText = parts[0].lowercased()
        let digits = cidText.hasPrefix("0x") ? String(cidText.dropFirst(2)) : cidText
        guard let cid = UInt16(digits, radix: 16) else { return nil }
        let name = parts[1].lowercased()
        switch name {
        case "rfcomm": self = .cid(cid, psm: PSM.rfcomm)
        case "att": self = .cid(cid, psm: PSM.att)
        case "sdp": self = .cid(cid, psm: PSM.sdp)
        default:
            guard let named = Self.profileChannels.first(where: { $0.name == name }) else { return nil }
            self = named.binding(cid)
        }
    }

    /// The names profiles give their channels (`avdtp`, `avctp-browsing`, …), in the order of
    /// `Analyzer.profiles`.
    static let profileChannels = Analyzer.profiles.flatMap(\.decodeAs)

    /// `CID=NAME`'s names, for the option's help.
    static let channelNames = (["rfcomm", "att", "sdp"] + profileChannels.map(\.name)).joined(separator: "|")
}
