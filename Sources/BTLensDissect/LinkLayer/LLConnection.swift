import BTLensCapture
import BTLensCore

/// One connection a sniffer follows by its access address: its handle in btlens' outputs, the
/// sequence numbers each side last sent, and whether its PDUs are encrypted.
struct LLConnection {
    var key: ConnectionKey
    /// What its SN, NESN and event counter say: retransmissions, PDUs missed.
    var sequence = LLSequence()
    /// When it was last heard, and its supervision timeout: when it is lost.
    var supervision = LLSupervision()
    /// The side that sent the last PDU: for captures that do not say (LINKTYPE 251), the next is
    /// taken to be its peer, as central and peripheral take turns within a connection event.
    var lastSender: AirPacket.Sender?
    /// LL_START_ENC_REQ was seen: from then on the PDUs are encrypted.
    var encrypted = false
    var saidEncrypted = false

    init(key: ConnectionKey) { self.key = key }
}
