import Crypto
import CryptoExtras
import Foundation

/// AES-CCM as LE encryption uses it (Vol 6 Part E §2, RFC 3610): a 13-octet nonce, a 2-octet length
/// field, 1 octet of additional data and a 4-octet MIC, from swift-crypto's AES-CBC (the MAC) and
/// AES-CTR (the key stream).
struct CCM {
    let cipher: BlockCipher
    /// The 13 nonce octets as a number, the first octet most significant (Vol 6 Part E §2.1).
    let nonce: UInt128

    /// The largest payload the LL length octet allows, MIC included (Vol 6 Part B §2.4).
    static let maxPayload = 255
    static let micSize = 4

    func encrypt(aad: UInt8, plaintext: [UInt8]) -> [UInt8]? {
        guard plaintext.count + Self.micSize <= Self.maxPayload, let stream = ctr(zeroBlock + plaintext),
            let tag = cbcMAC(aad: aad, plaintext: plaintext)
        else { return nil }
        // The stream past S0 is the plaintext already XORed with S1, S2, …
        return stream.dropFirst(16) + zip(tag.prefix(Self.micSize), stream.prefix(Self.micSize)).map { $0 ^ $1 }
    }

    /// The plaintext, or nil when `payload` is shorter than the MIC, too long or the MIC does not match.
    func decrypt(aad: UInt8, payload: [UInt8]) -> [UInt8]? {
        guard payload.count >= Self.micSize, payload.count <= Self.maxPayload else { return nil }
        // S0 first (for the MIC), then S1… XORed into the body.
        guard let stream = ctr(zeroBlock + payload.dropLast(Self.micSize)) else { return nil }
        let plaintext = Array(stream.dropFirst(16))
        guard let tag = cbcMAC(aad: aad, plaintext: plaintext) else { return nil }
        // The MIC is public on air, so a plain comparison leaks nothing.
        let mic = zip(tag.prefix(Self.micSize), stream.prefix(Self.micSize)).map { $0 ^ $1 }
        return mic.elementsEqual(payload.suffix(Self.micSize)) ? plaintext : nil
    }

    private var zeroBlock: [UInt8] { [UInt8](repeating: 0, count: 16) }

    /// The CBC-MAC (RFC 3610 §2.2) over B0 (flags 0x49: Adata, M = 4, L = 2), B1 (the AAD's length 1
    /// and the AAD) and the payload padded with zeros: the last block of AES-CBC with a zero IV, in
    /// one call of swift-crypto.
    private func cbcMAC(aad: UInt8, plaintext: [UInt8]) -> [UInt8]? {
        let b0 = Key128(0x49 << 120 | nonce << 16 | UInt128(plaintext.count)).bigEndian
        let b1 = Key128(1 << 112 | UInt128(aad) << 104).bigEndian
        let padding = [UInt8](repeating: 0, count: (16 - plaintext.count % 16) % 16)
        guard let iv = try? AES._CBC.IV(ivBytes: zeroBlock),
            let out = try? AES._CBC.encrypt(b0 + b1 + plaintext + padding, using: cipher.key, iv: iv, noPadding: true)
        else { return nil }
        return Array(out.suffix(16))
    }

    /// `bytes` XORed with S0, S1, … (A_i = flags 0x01 ‖ nonce ‖ i, RFC 3610 §2.3): AES-CTR from A0
    /// in one call of swift-crypto.
    private func ctr(_ bytes: [UInt8]) -> [UInt8]? {
        let a0 = Key128(1 << 120 | nonce << 16).bigEndian
        guard let start = try? AES._CTR.Nonce(nonceBytes: a0),
            let out = try? AES._CTR.encrypt(bytes, using: cipher.key, nonce: start)
        else { return nil }
        return Array(out)
    }
}
