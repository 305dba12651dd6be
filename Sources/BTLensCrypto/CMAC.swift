import Crypto
import CryptoExtras

/// AES-CMAC of RFC 4493, the MAC under f4, f5, f6, g2, h6 and h7 (Vol 3 Part H §2.2.5), through swift-crypto.
public enum AESCMAC {
    /// The 128-bit MAC of `message` (octets in the spec's order, most significant first) under `key`.
    /// Nil only if the library refuses a 16-octet key, which it does not.
    public static func mac(key: Key128, message: some Collection<UInt8>) -> Key128? {
        let cipher = BlockCipher(key: key)
        guard var cmac = try? AES.CMAC(key: cipher.key) else { return nil }
        cmac.update(data: Array(message))
        let tag = cmac.finalize()
        return tag.withUnsafeBytes { Key128(bigEndian: $0) }
    }
}
