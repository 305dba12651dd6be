import ArgumentParser
import BTLensDissect

extension DecodeAs: ExpressibleByArgument {
    /// Parses `0x0041=rfcomm` (or `att`, `sdp`, `avdtp`, `avdtp-media`, `avctp`, `avctp-browsing`),
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
        switch parts[1].lowercased() {
        case "rfcomm": self = .cid(cid, psm: PSM.rfcomm)
        case "att": self = .cid(cid, psm: PSM.att)
        case "sdp": self = .cid(cid, psm: PSM.sdp)
        case "avdtp": self = .cid(cid, psm: PSM.avdtp)
        case "avdtp-media": self = .avdtpMedia(cid: cid)
        case "avctp": self = .cid(cid, psm: PSM.avctp)
        case "avctp-browsing": self = .cid(cid, psm: PSM.avctpBrowsing)
        default: return nil
        }
    }
}
