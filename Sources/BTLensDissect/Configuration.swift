/// What an analyzer is asked to decode and keep: one value, made once by the caller (the CLI's
/// options, a test) and handed to the analyzer through the pipeline.
public struct Configuration: Sendable {
    /// Channels whose setup is not in the capture (`--decode-as`).
    public var decodeAs: [DecodeAs]
    /// The dissector tables: built-in Swift dissectors and loaded definitions.
    public var dissectors: DissectorTable
    /// False when no consumer shows ACL fragments and L2CAP PDUs (`--verbose`): they are not built.
    public var lowerLayers: Bool
    /// How much of each PDU the consumer reads.
    public var detail: Analyzer.Detail
    /// The bounds on everything kept per capture (`--limit`).
    public var limits: Limits
    /// Long-term keys that decrypt sniffer captures' connections (`--ltk`, `--keys`).
    public var linkLayerKeys: [LinkLayerKey] = []
    /// False: ATT PDUs are counted in the tally, not sent, even in `.full` detail (`stats` with a
    /// display filter that needs frames as events but cannot select an ATT PDU).
    public var attEvents = true
    /// False: values, payloads and undecoded bytes are not copied out for the events, even in
    /// `.full` detail (`stats` with a display filter that reads none of them).
    public var keepsValues = true

    public init(
        decodeAs: [DecodeAs] = [], dissectors: DissectorTable = .builtIn, lowerLayers: Bool = true,
        detail: Analyzer.Detail = .full, limits: Limits = Limits()
    ) {
        self.decodeAs = decodeAs
        self.dissectors = dissectors
        self.lowerLayers = lowerLayers
        self.detail = detail
        self.limits = limits
    }
}
