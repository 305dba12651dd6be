import BTLensCore

/// A binding forced by the user (`--decode-as`): a channel whose setup is not in the capture.
/// The command line's syntax for it is parsed by the CLI.
public enum DecodeAs: Equatable, Sendable {
    /// An L2CAP dynamic CID (as seen in either direction) carries this PSM.
    case cid(UInt16, psm: UInt16)
    /// An L2CAP dynamic CID carries an AVDTP stream's media (the signalling channel is `cid` with PSM 0x0019).
    case avdtpMedia(cid: UInt16)
    /// An RFCOMM server channel carries iAP2.
    case rfcommIAP2(channel: UInt8)
    /// An RFCOMM server channel carries HFP or HSP AT commands.
    case rfcommHFP(channel: UInt8)
    /// The values of an ATT handle are decoded by the named dissector; with `message`, each value
    /// is that whole-value message (as the definition's characteristic binding that names it).
    case attHandle(UInt16, dissector: String, message: String? = nil)
    /// The SDUs of credit-based channels opened to a PSM are decoded by the named dissector.
    case psm(UInt16, dissector: String)
    /// An RFCOMM server channel, on every ACL link, carries the named dissector's framing.
    case rfcommDissector(channel: UInt8, dissector: String)
    /// An L2CAP dynamic CID (as seen in either direction) whose signalling is not in the capture
    /// carries the named dissector's framing: basic-mode PDUs, or K-frames' SDUs on an LE link.
    case l2capDissector(cid: UInt16, dissector: String)

    /// The dissector it names, and how the command line wrote what it binds; nil for the channels
    /// of built-in protocols.
    public var dissectorBinding: (what: String, dissector: String)? {
        switch self {
        case .attHandle(let handle, let name, _): return ("att:\(Hex.value(handle, width: 4))", name)
        case .psm(let psm, let name): return ("psm:\(Hex.value(psm, width: 4))", name)
        case .rfcommDissector(let channel, let name): return ("rfcomm:\(channel)", name)
        case .l2capDissector(let cid, let name): return ("l2cap:\(Hex.value(cid, width: 4))", name)
        default: return nil
        }
    }
}
