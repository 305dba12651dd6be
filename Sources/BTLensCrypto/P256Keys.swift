import Crypto

/// P-256 as Secure Connections uses it (Vol 3 Part H §2.3.5.6.1), through swift-crypto: public keys are the
/// 64 octets of the Pairing Public Key PDU, X then Y, each least significant octet first.
public enum SecureConnectionsKeys {
    /// The public key of `privateKey` as a Pairing Public Key PDU carries it; nil for a scalar that is not
    /// a valid private key (0, or not below the group order).
    public static func publicKey(privateKey: Key256) -> [UInt8]? {
        guard let own = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey.bigEndian) else { return nil }
        let raw = Array(own.publicKey.rawRepresentation)
        guard raw.count == 64 else { return nil }
        return raw.prefix(32).reversed() + raw.suffix(32).reversed()
    }

    /// The DHKey, the X coordinate of the shared point (§2.3.5.6.1), of `privateKey` with `peerKey`; nil
    /// when the peer key is not 64 octets or not a point of P-256, or the private key is invalid.
    public static func dhKey(privateKey: Key256, peerKey: some Collection<UInt8>) -> Key256? {
        guard peerKey.count == 64,
            let peerX = Key256(littleEndian: peerKey.prefix(32)),
            let peerY = Key256(littleEndian: peerKey.dropFirst(32)),
            let own = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey.bigEndian),
            let peer = try? P256.KeyAgreement.PublicKey(rawRepresentation: peerX.bigEndian + peerY.bigEndian),
            let secret = try? own.sharedSecretFromKeyAgreement(with: peer)
        else { return nil }
        return secret.withUnsafeBytes { Key256(bigEndian: $0) }
    }
}
