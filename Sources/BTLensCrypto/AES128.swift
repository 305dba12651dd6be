import Crypto
import CryptoExtras

/// The Core specification's security function e (Vol 3 Part H §2.2.1): AES-128 of one block, through
/// swift-crypto's block function. Key and block are `Key128`, so neither can have a wrong size.
public enum AES128 {
    /// e(key, plaintextData). Nil only if the library refuses a 16-octet key and block, which it does not.
    public static func e(_ key: Key128, _ plaintext: Key128) -> Key128? {
        BlockCipher(key: key).encrypt(plaintext)
    }
}

/// One AES-128 key, made once and used for many blocks (the key is copied into the library once).
struct BlockCipher: Sendable {
    let key: SymmetricKey

    init(key: Key128) {
        var octets = key.value.bigEndian
        self.key = withUnsafeBytes(of: &octets) { SymmetricKey(data: $0) }
    }

    func encrypt(_ block: Key128) -> Key128? {
        var octets = block.value.bigEndian
        let done: Bool = withUnsafeMutableBytes(of: &octets) { raw in
            var buffer = raw.bindMemory(to: UInt8.self)
            do {
                try AES.permute(&buffer, key: key)
                return true
            } catch {
                return false
            }
        }
        return done ? Key128(UInt128(bigEndian: octets)) : nil
    }
}
