import BTLensCapture
import BTLensCore

/// One connection a sniffer follows by its access address: its handle in btlens' outputs, the
/// sequence numbers each side last sent, its devices, and its pairing and encryption. A class: the
/// table of connections hands out the one state each PDU updates, never a copy to write back.
final class LLConnection {
    var key: ConnectionKey
    /// The central's and the peripheral's address types and addresses, from the CONNECT_IND; nil
    /// for a connection whose CONNECT_IND is not in the capture.
    var devices: (central: LLDevice, peripheral: LLDevice)?
    var pairing = LLPairing()
    var encryption = LLEncryption()
    /// What its SN, NESN and event counter say: retransmissions, PDUs missed.
    var sequence = LLSequence()
    /// When it was last heard, and its supervision timeout: when it is lost.
    var supervision = LLSupervision()
    /// The side that sent the last PDU: for captures that do not say (LINKTYPE 251), the next is
    /// taken to be its peer, as central and peripheral take turns within a connection event.
    var lastSender: AirPacket.Sender?

    init(key: ConnectionKey) { self.key = key }
}

/// A device of a connection: its address type (0 public, 1 random) and address.
struct LLDevice {
    var type: UInt8
    var address: BDAddr
}
