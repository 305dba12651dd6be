/// The LE Secure Connections functions of Vol 3 Part H §2.2.6–§2.2.10, all AES-CMAC, in the spec's terms:
/// values are the numbers the spec prints, concatenated most significant first.
extension SecurityFunctions {
    /// f4(U, V, X, Z) = AES-CMAC_X(U || V || Z): confirm values (§2.2.6).
    public static func f4(u: Key256, v: Key256, x: Key128, z: UInt8) -> Key128? {
        AESCMAC.mac(key: x, message: u.bigEndian + v.bigEndian + [z])
    }

    /// f5(W, N1, N2, A1, A2) = MacKey || LTK (§2.2.7): T = AES-CMAC_SALT(W), then AES-CMAC_T of
    /// Counter || keyID "btle" || N1 || N2 || A1 || A2 || Length 256, with Counter 0 for MacKey, 1 for LTK.
    public static func f5(
        w: Key256, n1: Key128, n2: Key128, a1: PairingAddress, a2: PairingAddress
    ) -> (macKey: Key128, ltk: Key128)? {
        let salt = Key128(0x6C88_8391_AAF5_A538_6037_0BDB_5A60_83BE)
        guard let t = AESCMAC.mac(key: salt, message: w.bigEndian) else { return nil }
        let body =
            UInt32(0x6274_6C65).bigEndianOctets(4) + n1.bigEndian + n2.bigEndian
            + a1.a56.bigEndianOctets(7) + a2.a56.bigEndianOctets(7) + UInt16(256).bigEndianOctets(2)
        guard let macKey = AESCMAC.mac(key: t, message: [0] + body),
            let ltk = AESCMAC.mac(key: t, message: [1] + body)
        else { return nil }
        return (macKey, ltk)
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2) = AES-CMAC_W(N1 || N2 || R || IOcap || A1 || A2): DHKey checks
    /// (§2.2.8). `ioCap` is the 24-bit AuthReq || OOB || IO capability; higher bits are not sent.
    public static func f6(
        w: Key128, n1: Key128, n2: Key128, r: Key128, ioCap: UInt32, a1: PairingAddress, a2: PairingAddress
    ) -> Key128? {
        let message =
            n1.bigEndian + n2.bigEndian + r.bigEndian + ioCap.bigEndianOctets(3)
            + a1.a56.bigEndianOctets(7) + a2.a56.bigEndianOctets(7)
        return AESCMAC.mac(key: w, message: message)
    }

    /// g2(U, V, X, Y) = AES-CMAC_X(U || V || Y) mod 2^32 (§2.2.9); the numeric comparison value is
    /// this modulo 1 000 000.
    public static func g2(u: Key256, v: Key256, x: Key128, y: Key128) -> UInt32? {
        guard let mac = AESCMAC.mac(key: x, message: u.bigEndian + v.bigEndian + y.bigEndian) else { return nil }
        return UInt32(truncatingIfNeeded: mac.value)
    }

    /// h6(W, keyID) = AES-CMAC_W(keyID): link key conversion (§2.2.10).
    public static func h6(w: Key128, keyID: UInt32) -> Key128? {
        AESCMAC.mac(key: w, message: keyID.bigEndianOctets(4))
    }

    /// h7(SALT, W) = AES-CMAC_SALT(W): link key conversion with a salt (§2.2.11).
    public static func h7(salt: Key128, w: Key128) -> Key128? {
        AESCMAC.mac(key: salt, message: w.bigEndian)
    }
}
