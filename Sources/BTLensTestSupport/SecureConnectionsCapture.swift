import BTLensCapture
import BTLensCrypto

/// LE Secure Connections pairing over the air (Core v5.4 Vol 3 Part H §2.3.5.6, Just Works): the
/// public keys, the responder's confirm, both nonces and DHKey checks, then encryption with the
/// LTK f5 gives and a read. With `debugKey`, the initiator uses the specification's debug key pair
/// (§2.3.5.6.1), so the capture gives the LTK away; without, the key pair is a private one.
public enum SecureConnectionsCapture {
    /// A private key of the responder's (any number below the curve's order).
    static let responderKey = Key256(hex: "55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")!
    static let otherKey = Key256(hex: "3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abe")!
    static let na: [UInt8] = (0..<16).map { UInt8(0xa0 + $0) }
    static let nb: [UInt8] = (0..<16).map { UInt8(0x50 + $0) }

    public static func capture(debugKey: Bool) -> [UInt8] {
        var s = SnifferCapture.Script()
        let p = SnifferCapture.self
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(p.firstAccessAddress))
        var link = AirLink(p.firstAccessAddress)
        // NoInputNoOutput, bonding and Secure Connections (AuthReq 0x09), 16-octet keys, no key distribution.
        link.event(
            &s, .smp([0x01, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00]), .smp([0x02, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00]))
        let pka =
            debugKey
            ? SecureConnectionsDebugKey.publicKeyX + SecureConnectionsDebugKey.publicKeyY
            : SecureConnectionsKeys.publicKey(privateKey: Self.otherKey.flipped)!
        let pkb = SecureConnectionsKeys.publicKey(privateKey: responderKey)!
        link.event(&s, .smp([0x0c] + pka), .smp([0x0c] + pkb))
        link.event(&s, nil, .smp([0x03] + Array(repeating: 0xcc, count: 16)))
        link.event(&s, .smp([0x04] + na), .smp([0x04] + nb))
        link.event(
            &s, .smp([0x0d] + Array(repeating: 0xdd, count: 16)), .smp([0x0d] + Array(repeating: 0xee, count: 16)))
        let ltk =
            SecureConnectionsDebugKey.ltk(
                initiatorKey: pka, responderKey: pkb, na: na, nb: nb, initiatorType: 0, initiator: p.central.wire,
                responderType: 1, responder: p.peripheral.wire)
            ?? Key128(hex: "00000000000000000000000000000001")!
        let zero: [UInt8] = [0x03] + Array(repeating: 0, count: 10)
        SnifferSamples.startEncryption(
            &s, &link, ltk: ltk, zero + Array(repeating: 0x31, count: 12), [0x04] + Array(repeating: 0x13, count: 12))
        link.event(&s, .att([0x0a, 0x03, 0x00]), .att([0x0b, 0x68, 0x69]))
        return SnifferSamples.bytes(s, .nordic, .pcap(nanoseconds: false))
    }
}

extension Key256 {
    /// Another valid private key: this one with its low half changed.
    fileprivate var flipped: Key256 { Key256(high: high, low: low ^ 0xff) }
}
