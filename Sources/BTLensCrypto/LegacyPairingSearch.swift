/// What a capture of LE legacy pairing gives away (Vol 3 Part H §2.3.5.5): with the Pairing Request and
/// Response, both addresses and one Pairing Random with its Pairing Confirm, the TK of Just Works (0) or of
/// a passkey (000000–999999) is found by trying each one in c1, and the STK follows from s1.
public struct LegacyPairing: Sendable {
    /// The largest passkey (§2.3.5.3); TK is the passkey as a 128-bit number.
    public static let maxPasskey: UInt32 = 999_999
    let p1: Key128
    let p2: Key128

    /// The PDUs' 7 octets each (code 0x01 and 0x02 first), the addresses as in the PDUs (least significant
    /// octet first) with their types (0 public, 1 random). Nil when a size, code or type is wrong.
    public init?(
        pairingRequest: some Collection<UInt8>, pairingResponse: some Collection<UInt8>,
        initiatorType: UInt8, initiator: some Collection<UInt8>,
        responderType: UInt8, responder: some Collection<UInt8>
    ) {
        guard let preq = PairingFeatures(pdu: pairingRequest), preq.code == 0x01,
            let pres = PairingFeatures(pdu: pairingResponse), pres.code == 0x02,
            let ia = PairingAddress(type: initiatorType, littleEndian: initiator),
            let ra = PairingAddress(type: responderType, littleEndian: responder)
        else { return nil }
        (p1, p2) = SecurityFunctions.c1Padding(preq: preq, pres: pres, initiator: ia, responder: ra)
    }

    /// The TK (0 for Just Works, else a passkey ≤ 999999) whose c1 of `rand` gives `confirm`, or nil.
    /// `rand` and `confirm` are 16 octets as in Pairing Random and Pairing Confirm (Mrand with Mconfirm, or
    /// Srand with Sconfirm). At most a million c1, two AES blocks each under a key made once per TK.
    public func findTK(rand: some Collection<UInt8>, confirm: some Collection<UInt8>) -> UInt32? {
        guard let r = Key128(littleEndian: rand), let expected = Key128(littleEndian: confirm) else { return nil }
        let start = r ^ p1
        for tk in 0...Self.maxPasskey {
            let cipher = BlockCipher(key: Key128(UInt128(tk)))
            if let inner = cipher.encrypt(start), cipher.encrypt(inner ^ p2) == expected {
                return tk
            }
        }
        return nil
    }

    /// c1(TK, rand) as the 16 octets of a Pairing Confirm PDU, for the capture writer; nil unless `rand`
    /// has 16 octets.
    public func confirm(tk: UInt32, rand: some Collection<UInt8>) -> [UInt8]? {
        guard let r = Key128(littleEndian: rand) else { return nil }
        let cipher = BlockCipher(key: Key128(UInt128(tk)))
        return SecurityFunctions.c1(cipher, r: r, p1: p1, p2: p2)?.littleEndian
    }

    /// STK = s1(TK, Srand, Mrand) (§2.3.5.5), the randoms as in Pairing Random; nil unless 16 octets each.
    public static func stk(tk: UInt32, srand: some Collection<UInt8>, mrand: some Collection<UInt8>) -> Key128? {
        guard let r1 = Key128(littleEndian: srand), let r2 = Key128(littleEndian: mrand) else { return nil }
        return SecurityFunctions.s1(k: Key128(UInt128(tk)), r1: r1, r2: r2)
    }
}
