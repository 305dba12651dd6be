/// One encryption session of one LE connection (Vol 6 Part E §1–§2; Vol 6 Part B §5.1.3): the session key
/// and IV from LL_ENC_REQ and LL_ENC_RSP, and AES-CCM over data channel PDUs. Holds a key and an IV only:
/// its memory does not grow with the connection.
public struct LLCipher: Sendable {
    /// The MIC's size at the end of an encrypted payload (Vol 6 Part E §1).
    public static let micSize = CCM.micSize
    /// The largest encrypted payload, MIC included: the LL length octet's limit (Vol 6 Part B §2.4).
    public static let maxPayloadSize = CCM.maxPayload
    /// The packet counter has 39 bits (Vol 6 Part E §2.1).
    public static let maxCounter: UInt64 = (1 << 39) - 1

    public let sessionKey: Key128
    /// IVm (least significant) || IVs as the 8 nonce octets after the counter (Vol 6 Part E §2.1).
    private let iv: UInt64
    private let cipher: BlockCipher

    /// `skdm`, `ivm` as in LL_ENC_REQ and `skds`, `ivs` as in LL_ENC_RSP (least significant octet first).
    /// SK = e(LTK, SKD) with SKD = SKDm || SKDs, SKDm the least significant half. Nil when a size is wrong.
    public init?(
        ltk: Key128, skdm: some Collection<UInt8>, ivm: some Collection<UInt8>,
        skds: some Collection<UInt8>, ivs: some Collection<UInt8>
    ) {
        guard skdm.count == 8, skds.count == 8, ivm.count == 4, ivs.count == 4,
            let skd = Key128(littleEndian: Array(skdm) + Array(skds)),
            let sessionKey = AES128.e(ltk, skd)
        else { return nil }
        self.sessionKey = sessionKey
        iv = (Array(ivm) + Array(ivs)).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        cipher = BlockCipher(key: sessionKey)
    }

    /// The plaintext of a data channel PDU. `header` is the PDU header's first octet, `payload` the payload
    /// with its 4-octet MIC, `counter` the 39-bit packet counter of that direction. Nil when the payload is
    /// shorter than `micSize` or longer than `maxPayloadSize`, the counter exceeds `maxCounter`, or the MIC
    /// does not match: a caller that checks the first two names the third as the MIC failing.
    public func decrypt(
        header: UInt8, payload: some Collection<UInt8>, counter: UInt64, fromCentral: Bool
    ) -> [UInt8]? {
        ccm(counter: counter, fromCentral: fromCentral)?.decrypt(aad: Self.aad(header), payload: Array(payload))
    }

    /// The payload with its MIC for `plaintext` (the test capture writer's side); nil when the plaintext is
    /// longer than 251 octets or the counter exceeds 39 bits.
    public func encrypt(
        header: UInt8, plaintext: some Collection<UInt8>, counter: UInt64, fromCentral: Bool
    ) -> [UInt8]? {
        ccm(counter: counter, fromCentral: fromCentral)?.encrypt(aad: Self.aad(header), plaintext: Array(plaintext))
    }

    /// The header's first octet with NESN, SN and MD cleared (Vol 6 Part E §1): LLID, CP and RFU are
    /// authenticated. CP (v5.1) is not masked: §1 names only those three, and Nordic's nRF5340 product
    /// specification states that its CCM includes CP in the MIC.
    static func aad(_ header: UInt8) -> UInt8 { header & 0xE3 }

    /// Nonce: the counter's 39 bits and the direction bit (1 from the central) in 5 octets, least significant
    /// first, then the IV (Vol 6 Part E §2.1).
    private func ccm(counter: UInt64, fromCentral: Bool) -> CCM? {
        guard counter <= Self.maxCounter else { return nil }
        let first5 = counter | (fromCentral ? 1 << 39 : 0)
        let octets =
            (0..<5).map { UInt8(truncatingIfNeeded: first5 >> ($0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: iv >> ($0 * 8)) }
        let nonce = octets.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
        return CCM(cipher: cipher, nonce: nonce)
    }
}
