/// Decimal digits written straight into a buffer: the one writer behind the JSONL and timeline
/// numbers (records, lengths, times), which write hundreds of thousands of them.
public enum DecimalDigits {
    /// How many digits `n` has: compared with powers of ten, not divided by them.
    @inlinable
    public static func count(_ n: UInt64) -> Int {
        var digits = 1
        var power: UInt64 = 10
        while n >= power {
            digits += 1
            // 10^19 is the last power of ten a UInt64 holds.
            if digits == 20 { return digits }
            power &*= 10
        }
        return digits
    }

    /// The last `count` digits of `n` into `out`, zero-padded on the left: from the right, two
    /// digits for each division by 100.
    @inlinable
    public static func write(_ n: UInt64, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        var rest = n
        var end = count
        while end >= 2 {
            let (high, low) = rest.quotientAndRemainder(dividingBy: 100)
            out[end - 2] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: low / 10)
            out[end - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: low % 10)
            rest = high
            end -= 2
        }
        if end == 1 { out[0] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10) }
    }
}
