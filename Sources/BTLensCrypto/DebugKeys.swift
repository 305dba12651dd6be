/// The Secure Connections debug key pair (Vol 3 Part H §2.3.5.6.1). A device in debug mode sends this
/// public key, and whoever knows the private key can compute the DHKey and so the LTK (§2.3.5.6.5).
public enum SecureConnectionsDebugKey {
    /// The private key, as the spec prints it.
    public static let privateKey = Key256(
        high: 0x3F49_F6D4_A3C5_5F38_74C9_B3E3_D210_3F50, low: 0x4AFF_607B_EB40_B799_5899_B8A6_CD3C_1ABD)
    static let x = Key256(
        high: 0x20B0_03D2_F297_BE2C_5E2C_83A7_E9F9_A5B9, low: 0xEFF4_9111_ACF4_FDDB_CC03_0148_0E35_9DE6)
    static let y = Key256(
        high: 0xDC80_9C49_652A_EB6D_6332_9ABF_5A52_155C, low: 0x7663_45C2_8FED_3024_741C_8ED0_1589_D28B)

    /// The public key's coordinates as in the Pairing Public Key PDU (least significant octet first).
    public static let publicKeyX: [UInt8] = x.littleEndian
    public static let publicKeyY: [UInt8] = y.littleEndian

    /// Whether `publicKey` (64 octets as in the PDU, X then Y) is the debug public key.
    public static func isDebugKey(_ publicKey: some Collection<UInt8>) -> Bool {
        publicKey.elementsEqual(publicKeyX + publicKeyY)
    }

    /// The DHKey of the debug private key with `peerKey` (64 octets as in the PDU); nil when the size is
    /// wrong or the point is not on P-256.
    public static func dhKey(peerKey: some Collection<UInt8>) -> Key256? {
        SecureConnectionsKeys.dhKey(privateKey: privateKey, peerKey: peerKey)
    }

    /// When one public key (64 octets as in the PDU, X then Y) is the debug key: the LTK of f5 with the
    /// DHKey of the other, Na the initiator's and Nb the responder's nonce (16 octets as in Pairing Random),
    /// and the addresses as in the PDUs with their types (0 public, 1 random). Nil otherwise.
    public static func ltk(
        initiatorKey: some Collection<UInt8>, responderKey: some Collection<UInt8>,
        na: some Collection<UInt8>, nb: some Collection<UInt8>,
        initiatorType: UInt8, initiator: some Collection<UInt8>,
        responderType: UInt8, responder: some Collection<UInt8>
    ) -> Key128? {
        let peer: [UInt8]
        if isDebugKey(initiatorKey) {
            peer = Array(responderKey)
        } else if isDebugKey(responderKey) {
            peer = Array(initiatorKey)
        } else {
            return nil
        }
        guard let w = dhKey(peerKey: peer), let n1 = Key128(littleEndian: na), let n2 = Key128(littleEndian: nb),
            let a1 = PairingAddress(type: initiatorType, littleEndian: initiator),
            let a2 = PairingAddress(type: responderType, littleEndian: responder)
        else { return nil }
        return SecurityFunctions.f5(w: w, n1: n1, n2: n2, a1: a1, a2: a2)?.ltk
    }
}
