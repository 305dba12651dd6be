import BTLensCore

/// The profile protocols btlens names above L2CAP and RFCOMM: what a headphone's audio link said.
public enum Profile: String, Sendable {
    /// AVDTP signalling (A2DP stream setup), Vol AVDTP §8.
    case avdtp
    /// One AVDTP media stream's packets, counted: they are never shown one by one.
    case avdtpMedia = "avdtp.media"
    /// AVRCP over AVCTP, control and browsing.
    case avrcp
    /// HFP/HSP AT commands and responses on their RFCOMM channel.
    case hfp
}

/// One message of a profile protocol: what the specification calls it, and what it carries.
/// `fields` hold wire values by the names docs/jsonl.md lists; strings from the peer are kept as
/// sent (renderers escape them).
public struct ProfileMessage: Sendable {
    public var profile: Profile
    /// "Set Configuration", "RegisterNotification", "AT+BRSF", …
    public var name: String
    public var fields: [(String, FieldValue)]

    public init(_ profile: Profile, _ name: String, _ fields: [(String, FieldValue)] = []) {
        self.profile = profile
        self.name = name
        self.fields = fields
    }
}
