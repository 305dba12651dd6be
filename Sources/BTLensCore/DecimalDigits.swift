/// Decimal digits written straight into a buffer: the one writer behind the JSONL and timeline
/// numbers (records, lengths, times), which write hundreds of thousands of them.
public enum DecimalDigits {
    /// How many digits `n` has.
    @inlinable
    public static func count(_ n: UInt64) -> Int {
        var digits = 1
        var rest = n / 10
        while rest > 0 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// The last `count` digits of `n` into `out`, zero-padded on the left.
    @inlinable
    public static func write(_ n: UInt64, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        var rest = n
        for i in stride(from: count - 1, through: 0, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }
}
