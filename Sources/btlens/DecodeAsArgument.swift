import ArgumentParser
import BTLensDissect

extension DecodeAs: ExpressibleByArgument {
    /// Parses `0x0041=rfcomm` (or `att`, `sdp`, or a name a profile gives its channels: `avdtp`, `avctp`, …),
    /// `rfcomm:3=iap2`, `rfcomm:3=hfp`, `rfcomm:3=DISSECTOR`, `att:0x0025=DISSECTOR` (or
    /// `DISSECTOR/MESSAGE` for a whole-value message), `psm:0x0080=DISSECTOR`, `l2cap:0x0041=DISSECTOR`.
    public init?(argument text: String) {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        let key = parts[0].lowercased()
        if key.hasPrefix("att:"), !parts[1].isEmpty {
            guard let handle = Self.hex(key.dropFirst(4)) else { return nil }
            let named = parts[1].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard named.count <= 2, !named.contains(where: \.isEmpty) else { return nil }
            self = .attHandle(handle, dissector: named[0], message: named.count == 2 ? named[1] : nil)
            return
        }
        if key.hasPrefix("psm:"), !parts[1].isEmpty {
            guard let psm = Self.hex(key.dropFirst(4)) else { return nil }
            self = .psm(psm, dissector: parts[1])
            return
        }
        if key.hasPrefix("l2cap:"), !parts[1].isEmpty {
            guard let cid = Self.hex(key.dropFirst(6)), cid >= 0x0040 else { return nil }
            self = .l2capDissector(cid: cid, dissector: parts[1])
            return
        }
        if key.hasPrefix("rfcomm:"), let ch = UInt8(key.dropFirst(7)), (1...30).contains(ch), !parts[1].isEmpty {
            switch parts[1].lowercased() {
            case "iap2": self = .rfcommIAP2(channel: ch)
            case "hfp", "hsp", "at": self = .rfcommHFP(channel: ch)
            default: self = .rfcommDissector(channel: ch, dissector: parts[1])
            }
            return
        }
        guard let cid = Self.hex(key[...]) else { return nil }
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

    /// A hex number, with or without `0x`.
    private static func hex(_ text: Substring) -> UInt16? {
        UInt16(text.hasPrefix("0x") ? text.dropFirst(2) : text, radix: 16)
    }

    /// The names profiles give their channels (`avdtp`, `avctp-browsing`, …), in the order of
    /// `Analyzer.profiles`.
    static let profileChannels = Analyzer.profiles.flatMap(\.decodeAs)

    /// `CID=NAME`'s names, for the option's help.
    static let channelNames = (["rfcomm", "att", "sdp"] + profileChannels.map(\.name)).joined(separator: "|")
}
