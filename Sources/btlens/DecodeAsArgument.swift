import ArgumentParser
import BTLensDissect

extension DecodeAs: ExpressibleByArgument {
    public init?(argument text: String) {
        guard let parsed = try? Self.parse(text) else { return nil }
        self = parsed
    }

    /// Why a `--decode-as` value was refused: the part that is wrong, and what it must be.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses `0x0041=rfcomm` (or `att`, `sdp`, or a name a profile gives its channels: `avdtp`, `avctp`, …),
    /// `rfcomm:3=iap2`, `rfcomm:3=hfp`, `rfcomm:3=DISSECTOR`, `att:0x0025=DISSECTOR` (or
    /// `DISSECTOR/MESSAGE` for a whole-value message), `psm:0x0080=DISSECTOR`, `l2cap:0x0041=DISSECTOR`.
    static func parse(_ text: String) throws(Refusal) -> DecodeAs {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw Refusal(
                description:
                    "expected one '=' between the channel and what to decode it as (0x0041=rfcomm, rfcomm:3=iap2, att:0x0025=DISSECTOR, psm:0x0080=DISSECTOR, l2cap:0x0041=DISSECTOR)"
            )
        }
        let (key, name) = (parts[0].lowercased(), parts[1])
        guard !key.isEmpty else {
            throw Refusal(
                description:
                    "nothing before '=': name the channel (a CID as 0x0041, rfcomm:N, att:HANDLE, psm:PSM or l2cap:CID)"
            )
        }
        guard !name.isEmpty else { throw Refusal(description: "nothing after '=': name what to decode \(key) as") }
        if key.hasPrefix("att:") {
            // Core Vol 3 Part F §3.2.2: handle 0x0000 is reserved.
            let handle = try number(key.dropFirst(4), "att:", "an ATT handle", lowest: 1)
            let named = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard named.count <= 2, !named.contains(where: \.isEmpty) else {
                throw Refusal(description: "'\(name)': expected DISSECTOR or DISSECTOR/MESSAGE")
            }
            return .attHandle(handle, dissector: named[0], message: named.count == 2 ? named[1] : nil)
        }
        if key.hasPrefix("psm:") {
            // Core Vol 3 Part A §4.2: PSM 0x0000 is reserved.
            return .psm(try number(key.dropFirst(4), "psm:", "a PSM", lowest: 1), dissector: name)
        }
        if key.hasPrefix("l2cap:") {
            // Below 0x0040 are the fixed channels (Core Vol 3 Part A §2.1), which carry their own protocol.
            let cid = try number(key.dropFirst(6), "l2cap:", "a dynamic L2CAP channel", lowest: 0x0040)
            return .l2capDissector(cid: cid, dissector: name)
        }
        if key.hasPrefix("rfcomm:") {
            // RFCOMM server channels are 1 to 30 (RFCOMM §5.4: DLCI = 2 × channel + direction).
            guard let channel = UInt8(key.dropFirst(7)), (1...30).contains(channel) else {
                let found = key.count > 7 ? "\(key):" : "nothing after 'rfcomm:':"
                throw Refusal(description: "\(found) an RFCOMM server channel is a number from 1 to 30")
            }
            switch name.lowercased() {
            case "iap2": return .rfcommIAP2(channel: channel)
            case "hfp", "hsp", "at": return .rfcommHFP(channel: channel)
            default: return .rfcommDissector(channel: channel, dissector: name)
            }
        }
        if key.contains(":") {
            throw Refusal(description: "'\(parts[0])': expected CID, rfcomm:N, att:HANDLE, psm:PSM or l2cap:CID")
        }
        // The null identifier is never a channel (Core Vol 3 Part A §2.1).
        let cid = try number(key[...], "", "an L2CAP channel (CID)", lowest: 1)
        switch name.lowercased() {
        case "rfcomm": return .cid(cid, psm: PSM.rfcomm)
        case "att": return .cid(cid, psm: PSM.att)
        case "sdp": return .cid(cid, psm: PSM.sdp)
        default:
            guard let named = profileChannels.first(where: { $0.name == name.lowercased() }) else {
                throw Refusal(
                    description:
                        "'\(name)': a channel is decoded as one of \(channelNames) (a dissector: l2cap:\(key)=\(name))")
            }
            return named.binding(cid)
        }
    }

    /// A hex number, with or without `0x`, from `lowest` to 0xFFFF; `what` names it in the refusal.
    private static func number(_ text: Substring, _ prefix: String, _ what: String, lowest: UInt16) throws(Refusal)
        -> UInt16
    {
        guard !text.isEmpty else {
            throw Refusal(
                description: "nothing after '\(prefix)': \(what) is a hex number from 0x\(hex4(lowest)) to 0xFFFF")
        }
        guard let value = UInt16(text.hasPrefix("0x") ? text.dropFirst(2) : text, radix: 16) else {
            throw Refusal(description: "\(prefix)\(text): \(what) is a hex number from 0x\(hex4(lowest)) to 0xFFFF")
        }
        guard value >= lowest else {
            throw Refusal(
                description:
                    "\(prefix)\(text): \(what) is from 0x\(hex4(lowest)) to 0xFFFF (0x\(hex4(value)) is \(value == 0 ? "reserved" : "a fixed channel"))"
            )
        }
        return value
    }

    private static func hex4(_ v: UInt16) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The names profiles give their channels (`avdtp`, `avctp-browsing`, …), in the order of
    /// `Analyzer.profiles`.
    static let profileChannels = Analyzer.profiles.flatMap(\.decodeAs)

    /// `CID=NAME`'s names, for the option's help.
    static let channelNames = (["rfcomm", "att", "sdp"] + profileChannels.map(\.name)).joined(separator: "|")
}
