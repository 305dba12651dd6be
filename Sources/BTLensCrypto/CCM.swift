/// AES-CCM as LE encryption uses it (Vol 6 Part E §2, RFC 3610): a 13-octet nonce, a 2-octet length
/// field, 1 octet of additional data and a 4-octet MIC, built on the block function e.
struct CCM {
    let cipher: BlockCipher
    /// The 13 nonce octets as a number, the first octet most significant (Vol 6 Part E §2.1).
    let nonce: UInt128

    /// The largest payload the LL length octet allows, MIC included (Vol 6 Part B §2.4).
    static let maxPayload = 255
    static let micSize = 4

    func encrypt(aad: UInt8, plaintext: [UInt8]) -> [UInt8]? {
        guard plaintext.count + Self.micSize <= Self.maxPayload, let stream = keyStream(count: plaintext.count),
            let mic = mic(aad: aad, plaintext: plaintext)
        else { return nil }
        return zip(plaintext, stream).map { $0 ^ $1 } + mic
    }

    /// The plaintext, or nil when `payload` is shorter than the MIC, too long or the MIC does not match.
    func decrypt(aad: UInt8, payload: [UInt8]) -> [UInt8]? {
        guard payload.count >= Self.micSize, payload.count <= Self.maxPayload else { return nil }
        let body = payload.dropLast(Self.micSize)
        guard let stream = keyStream(count: body.count) else { return nil }
        let plaintext = zip(body, stream).map { $0 ^ $1 }
        // The MIC is public on air, so a plain comparison leaks nothing.
        guard let mic = mic(aad: aad, plaintext: plaintext), mic.elementsEqual(payload.suffix(Self.micSize))
        else { return nil }
        return plaintext
    }

    /// The CBC-MAC's first 4 octets encrypted with S0.
    private func mic(aad: UInt8, plaintext: [UInt8]) -> [UInt8]? {
        guard let tag = tag(aad: aad, plaintext: plaintext), let s0 = counterBlock(0) else { return nil }
        return Array((tag ^ s0).bigEndian.prefix(Self.micSize))
    }

    /// CBC-MAC over B0 (flags 0x49: Adata, M = 4, L = 2), B1 (the AAD length 1 and the AAD) and the payload.
    private func tag(aad: UInt8, plaintext: [UInt8]) -> Key128? {
        let b0 = Key128(0x49 << 120 | nonce << 16 | UInt128(plaintext.count))
        let b1 = Key128(1 << 112 | UInt128(aad) << 104)
        guard var x = cipher.encrypt(b0) else { return nil }
        for block in [b1] + Self.blocks(plaintext) {
            guard let next = cipher.encrypt(x ^ block) else { return nil }
            x = next
        }
        return x
    }

    /// S1, S2, … (A_i = flags 0x01 || nonce || i), cut to `count` octets.
    private func keyStream(count: Int) -> [UInt8]? {
        var stream: [UInt8] = []
        var index: UInt128 = 1
        while stream.count < count {
            guard let block = counterBlock(index) else { return nil }
            stream += block.bigEndian
            index += 1
        }
        return Array(stream.prefix(count))
    }

    private func counterBlock(_ index: UInt128) -> Key128? {
        cipher.encrypt(Key128(1 << 120 | nonce << 16 | index))
    }

    /// The payload in 16-octet blocks, the last padded with zeros.
    private static func blocks(_ bytes: [UInt8]) -> [Key128] {
        stride(from: 0, to: bytes.count, by: 16).compactMap { start in
            let chunk = bytes[start..<min(start + 16, bytes.count)]
            return Key128(bigEndian: chunk + [UInt8](repeating: 0, count: 16 - chunk.count))
        }
    }
}
