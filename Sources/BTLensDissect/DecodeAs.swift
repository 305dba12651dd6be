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
    /// The values of an ATT handle are decoded by the named dissector.
    case attHandle(UInt16, dissector: String)
    /// The SDUs of credit-based channels opened to a PSM are decoded by the named dissector.
    case psm(UInt16, dissector: String)
}
