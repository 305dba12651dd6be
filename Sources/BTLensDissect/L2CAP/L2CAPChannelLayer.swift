import BTLensCapture
import BTLensCore

/// A layer that reads L2CAP channels: the fixed channels it owns and the PSMs whose dynamic
/// channels carry it (Assigned Numbers), as Wireshark's `btl2cap.cid` and `btl2cap.psm` tables.
/// `L2CAPLayer` hands it the PDUs of those channels, whether their setup was captured, forced by
/// `--decode-as` or guessed.
protocol L2CAPChannelLayer: AnyObject {
    static var cids: [UInt16] { get }
    static var psms: [UInt16] { get }
    /// A whole PDU of one of its channels; `psm` is nil on a fixed channel.
    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord)
    /// Signalling opened a channel to one of its PSMs (both CIDs); `first`: the connection's first
    /// channel to that PSM.
    func channelOpened(_ channels: [L2CAPChannelMap.Key], first: Bool)
    /// Signalling closed one of its channels: what it kept for the channel ends (its CIDs may be reused).
    func channelClosed(_ channel: L2CAPChannelMap.Key, at place: RecordPlace)
}

extension L2CAPChannelLayer {
    static var cids: [UInt16] { [] }
    static var psms: [UInt16] { [] }
    func channelOpened(_ channels: [L2CAPChannelMap.Key], first: Bool) {}
    func channelClosed(_ channel: L2CAPChannelMap.Key, at place: RecordPlace) {}
}

/// Who reads each L2CAP channel: the fixed channels by CID (signalling is L2CAP's own), dynamic
/// channels by PSM. Filled once when the analyzer is built; read per PDU.
struct L2CAPBindings {
    enum Fixed {
        case signaling
        case layer(any L2CAPChannelLayer)
    }

    /// Indexed by CID: the fixed channels are 0x0001–0x003F (Core Vol 3 Part A §2.1).
    private(set) var fixed = [Fixed?](repeating: nil, count: 0x40)
    /// A handful of PSMs: a scan is as quick as a hash.
    private var dynamic: [(psm: UInt16, layer: any L2CAPChannelLayer)] = []

    init() {
        fixed[Int(L2CAPChannel.signaling)] = .signaling
        fixed[Int(L2CAPChannel.leSignaling)] = .signaling
    }

    mutating func bind(_ layer: any L2CAPChannelLayer) {
        for cid in type(of: layer).cids where cid < 0x40 { fixed[Int(cid)] = .layer(layer) }
        for psm in type(of: layer).psms { dynamic.append((psm, layer)) }
    }

    func layer(psm: UInt16) -> (any L2CAPChannelLayer)? {
        for entry in dynamic where entry.psm == psm { return entry.layer }
        return nil
    }
}

/// ATT on its fixed channel (LE) and on PSM 0x001F (BR/EDR); EATT's credit-based channels reach it
/// through `CreditChannelLayer`.
extension ATTLayer: L2CAPChannelLayer {
    static var cids: [UInt16] { [L2CAPChannel.att] }
    static var psms: [UInt16] { [PSM.att] }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {
        self.pdu(consume pdu, channel.connection, channel.direction, r, fixedChannel: psm == nil)
    }
}

/// SMP on its LE and BR/EDR fixed channels.
extension SMPLayer: L2CAPChannelLayer {
    static var cids: [UInt16] { [L2CAPChannel.smp, L2CAPChannel.bredrSMP] }

    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {
        smp(pdu, channel.connection, channel.direction, r)
    }
}
