/// The LE legacy pairing functions of Vol 3 Part H §2.2.3 (c1) and §2.2.4 (s1), in the spec's terms:
/// every 128-bit value is the number the spec prints (`Key128.value`).
public enum SecurityFunctions {
    /// c1(k, r, preq, pres, iat, rat, ia, ra): the confirm value of legacy pairing (§2.2.3).
    public static func c1(
        k: Key128, r: Key128, preq: PairingFeatures, pres: PairingFeatures,
        initiator: PairingAddress, responder: PairingAddress
    ) -> Key128? {
        let (p1, p2) = c1Padding(preq: preq, pres: pres, initiator: initiator, responder: responder)
        return c1(BlockCipher(key: k), r: r, p1: p1, p2: p2)
    }

    /// p1 = pres || preq || rat' || iat' and p2 = padding || ia || ra, as §2.2.3 lays them out.
    static func c1Padding(
        preq: PairingFeatures, pres: PairingFeatures, initiator: PairingAddress, responder: PairingAddress
    ) -> (p1: Key128, p2: Key128) {
        let p1 =
            UInt128(pres.value) << 72 | UInt128(preq.value) << 16 | UInt128(responder.type) << 8
            | UInt128(initiator.type)
        let p2 = UInt128(initiator.address) << 48 | UInt128(responder.address)
        return (Key128(p1), Key128(p2))
    }

    /// e(k, e(k, r XOR p1) XOR p2) with the key already made: the TK search runs this a million times.
    static func c1(_ cipher: BlockCipher, r: Key128, p1: Key128, p2: Key128) -> Key128? {
        guard let inner = cipher.encrypt(r ^ p1) else { return nil }
        return cipher.encrypt(inner ^ p2)
    }

    /// s1(k, r1, r2) = e(k, r1' || r2'), r1' and r2' the least significant 64 bits of r1 and r2 (§2.2.4).
    /// For the STK: s1(TK, Srand, Mrand).
    public static func s1(k: Key128, r1: Key128, r2: Key128) -> Key128? {
        let low: UInt128 = 0xFFFF_FFFF_FFFF_FFFF
        return AES128.e(k, Key128((r1.value & low) << 64 | r2.value & low))
    }

    /// ah(k, r) = e(k, padding || r) mod 2^24: the hash of a resolvable private address (§2.2.2). `r` is
    /// prand's 24 bits; higher bits are not part of an address and are ignored.
    public static func ah(k: Key128, r: UInt32) -> UInt32? {
        guard let out = AES128.e(k, Key128(UInt128(r & 0xFF_FFFF))) else { return nil }
        return UInt32(truncatingIfNeeded: out.value) & 0xFF_FFFF
    }
}
