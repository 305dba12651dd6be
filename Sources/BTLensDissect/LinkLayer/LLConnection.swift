import BTLensCapture
import BTLensCore

/// One connection a sniffer follows by its access address: its handle in btlens' outputs, the
/// sequence numbers each side last sent, its devices, and its pairing and encryption.
struct LLConnection {
    var key: ConnectionKey
    /// The central's and the peripheral's address types and addresses, from the CONNECT_IND; nil
    /// for a connection whose CONNECT_IND is not in the capture.
    var devices: (central: LLDevice, peripheral: LLDevice)?
    var pairing = LLPairing()
    var encryption = LLEncryption()
    /// Each side's last SN (index 0 the central's, 1 the peripheral's), and whether the peer's NESN
    /// has acknowledged it since (Core v5.4 Vol 6 Part B §4.5.9).
    private var lastSN: [UInt8?] = [nil, nil]
    private var acknowledged = [false, false]
    /// The side that sent the last PDU: for captures that do not say (LINKTYPE 251), the next is
    /// taken to be its peer, as central and peripheral take turns within a connection event.
    var lastSender: AirPacket.Sender?

    init(key: ConnectionKey) { self.key = key }

    /// Whether `sender`'s PDU repeats its last SN that the peer never acknowledged (a retransmission);
    /// records the PDU's SN and what its NESN acknowledges.
    mutating func isRetransmission(_ sender: AirPacket.Sender, sn: UInt8, nesn: UInt8) -> Bool {
        let side = sender == .central ? 0 : 1
        let peer = 1 - side
        lastSender = sender
        if let p = lastSN[peer], nesn != p { acknowledged[peer] = true }
        if lastSN[side] == sn, !acknowledged[side] { return true }
        lastSN[side] = sn
        acknowledged[side] = false
        return false
    }
}

/// A device of a connection: its address type (0 public, 1 random) and address.
struct LLDevice {
    var type: UInt8
    var address: BDAddr
}
