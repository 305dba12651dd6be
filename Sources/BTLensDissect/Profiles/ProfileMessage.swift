import BTLensCore

/// A profile protocol above L2CAP or RFCOMM (AVDTP, AVRCP, HFP): what a headphone's audio link
/// said. Each declares its `ProfileDescriptor` once, in a file of its own (`AVRCPProfile.swift`),
/// and is listed in `Analyzer.profiles`; its messages name it by its place there, which also gives
/// their event type.
public struct Profile: Sendable, Equatable {
    /// The place of its descriptor in `Analyzer.profiles`.
    let index: Int

    /// The registered profile `descriptor` declares, looked up once (profiles keep theirs in a
    /// `static let`): messages then carry a number, not a reference to count.
    init(_ descriptor: ProfileDescriptor) {
        guard let i = Analyzer.profiles.firstIndex(where: { $0 === descriptor }) else {
            preconditionFailure("profile \(descriptor.type) is not listed in Analyzer.profiles")
        }
        index = i
    }

    public var descriptor: ProfileDescriptor { Analyzer.profiles[index] }
}

/// Who a profile is, in every place that names it: its event type (JSONL, filters), its text
/// timeline's layer column and heading, the parameters its messages have, the PSMs it is read on
/// (L2CAP signalling names them) and the names `--decode-as CID=NAME` gives its channels.
public final class ProfileDescriptor: Sendable {
    /// The event type of its messages, as JSONL writes it and filters name it (`avdtp.media`).
    public let type: String
    /// The text timeline's layer column (AVDTP's signalling and media share one).
    public let layer: String
    /// The names of its messages' parameters (docs/jsonl.md), which filters accept.
    public let parameters: Set<String>
    /// Its PSMs with their names (Assigned Numbers): its layer's `psms`, and the names L2CAP
    /// signalling shows.
    public let psms: [(psm: UInt16, name: String)]
    /// `--decode-as CID=NAME`: each name and the binding it makes for a channel with no captured setup.
    public let decodeAs: [(name: String, binding: @Sendable (UInt16) -> DecodeAs)]
    /// A message's text heading, and the fields it already says (not repeated after it).
    public let heading: @Sendable (ProfileMessage) -> ProfileHeading

    init(
        type: String, layer: String, parameters: Set<String>, psms: [(psm: UInt16, name: String)] = [],
        decodeAs: [(name: String, binding: @Sendable (UInt16) -> DecodeAs)] = [],
        heading: @escaping @Sendable (ProfileMessage) -> ProfileHeading = { ProfileHeading($0.name) }
    ) {
        self.type = type
        self.layer = layer
        self.parameters = parameters
        self.psms = psms
        self.decodeAs = decodeAs
        self.heading = heading
    }
}

/// The text timeline's heading of a profile message: its text as decoded (the renderer makes it
/// safe for a terminal), and the fields it says.
public struct ProfileHeading {
    public var text: String
    public var said: Set<String>

    init(_ text: String, said: Set<String> = []) {
        self.text = text
        self.said = said
    }
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

    /// The string value of the field `key`, for a heading.
    func string(_ key: String) -> String? {
        if case .string(let s)? = fields.first(where: { $0.0 == key })?.1 { return s }
        return nil
    }
}
