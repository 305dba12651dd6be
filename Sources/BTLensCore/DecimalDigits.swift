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

    /// `us` microseconds as milliseconds, in the text Swift gives `Double(us) / 1000` ("1.25",
    /// "-0.5", "12"), made with integers: at most 15 bytes into `out`, and their count. Nil from
    /// 10^13 µs on, where that text is no longer the exact decimal (the caller formats the Double).
    @inlinable
    public static func milliseconds(_ us: Int64, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard us.magnitude < 10_000_000_000_000 else { return nil }
        var n = 0
        if us < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        let whole = us.magnitude / 1000
        let digits = count(whole)
        write(whole, count: digits, into: out + n)
        n += digits
        var fraction = us.magnitude % 1000
        guard fraction != 0 else { return n }
        var places = 3
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        out[n] = UInt8(ascii: ".")
        // 1.005 ms: the fraction 5 written in three places, "005".
        write(fraction, count: places, into: out + n + 1)
        return n + 1 + places
    }
}
