/// Hex text of keys and vectors: most significant digit first, spaces, underscores and a leading 0x ignored.
enum HexDigits {
    static func cleaned(_ text: String) -> Substring {
        let kept = String(text.filter { $0 != " " && $0 != "_" })
        return kept.hasPrefix("0x") || kept.hasPrefix("0X") ? kept.dropFirst(2) : Substring(kept)
    }

    /// The number of exactly `digits` hex digits (at most 32), or nil.
    static func value(_ text: String, digits: Int) -> UInt128? {
        let cleaned = cleaned(text)
        guard digits <= 32, cleaned.count == digits else { return nil }
        var value: UInt128 = 0
        for character in cleaned {
            guard let digit = character.hexDigitValue else { return nil }
            value = value << 4 | UInt128(digit)
        }
        return value
    }

    static func string(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
