import BTLensCapture
import BTLensCore

/// A protocol on RFCOMM server channels (HFP, iAP2), as in Wireshark's `btrfcomm.dlci` table: a
/// channel becomes its when an SDP record lists one of its service classes, or when it claims the
/// channel's first data (`--decode-as`, or bytes in its syntax). `RFCOMMLayer` then hands it the
/// channel's data.
protocol RFCOMMChannelLayer: AnyObject {
    /// True for a protocol that takes any channel no other claims, its data deciding later (iAP2's
    /// guesses): it is asked last, and a listing of another protocol takes a channel from it.
    static var takesAnyChannel: Bool { get }
    /// An SDP record of this protocol's service class.
    func isListed(by service: SDPService) -> Bool
    /// SDP listed it on this channel.
    func listed(_ channel: RFCOMMChannelKey)
    /// A channel no protocol has yet: its first data (`bytes`) makes it this protocol's.
    func claims(_ channel: RFCOMMChannelKey, _ bytes: ArraySlice<UInt8>) -> Bool
    /// Data on one of its channels.
    func data(_ bytes: ArraySlice<UInt8>, _ channel: RFCOMMChannelKey, _ direction: Direction, _ r: CaptureRecord)
}

extension RFCOMMChannelLayer {
    static var takesAnyChannel: Bool { false }
    func listed(_ channel: RFCOMMChannelKey) {}
}

/// Which protocol each RFCOMM channel of a connection carries, and the protocols that may, in the
/// order they are asked: those that claim by their syntax first, then those that take any channel.
struct RFCOMMBindings {
    private(set) var protocols: [any RFCOMMChannelLayer] = []
    /// Each channel's protocol, by its index in `protocols`; freed with the connection.
    private var carried: [RFCOMMChannelKey: Int] = [:]

    mutating func bind(_ layer: any RFCOMMChannelLayer) {
        if type(of: layer).takesAnyChannel {
            protocols.append(layer)
        } else {
            protocols.insert(layer, at: protocols.firstIndex { type(of: $0).takesAnyChannel } ?? protocols.count)
        }
    }

    /// The protocol of a channel, or the first that claims its first data.
    mutating func carrier(_ channel: RFCOMMChannelKey, _ bytes: ArraySlice<UInt8>) -> (any RFCOMMChannelLayer)? {
        if let i = carried[channel] { return protocols[i] }
        guard let i = protocols.firstIndex(where: { $0.claims(channel, bytes) }) else { return nil }
        carried[channel] = i
        return protocols[i]
    }

    /// An SDP record lists `service` on these channels: each protocol of its classes is told, and a
    /// channel becomes the first one's, unless a protocol asked before it holds the channel.
    mutating func listed(_ service: SDPService, _ channels: [RFCOMMChannelKey]) {
        for (i, layer) in protocols.enumerated() where layer.isListed(by: service) {
            for channel in channels {
                carried[channel] = min(carried[channel] ?? i, i)
                layer.listed(channel)
            }
        }
    }

    mutating func close(_ connection: ConnectionKey) {
        carried = carried.filter { $0.key.connection != connection }
    }
}
