import Crypto
import CryptoExtras

/// The Core specification's security function e (Vol 3 Part H §2.2.1): AES-128 of one block,
/// most significant octet first, through swift-crypto.
public enum AES128 {
    public static func encrypt(key: [UInt8], _ block: [UInt8]) -> [UInt8] {
        var out = block
        // Sizes are fixed at 16 by every caller; a wrong size is a programming error.
        try! AES.permute(&out, key: SymmetricKey(data: key))
        return out
    }
}
