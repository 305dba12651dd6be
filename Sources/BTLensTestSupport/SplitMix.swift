/// SplitMix64: a small, fast generator that gives the same numbers everywhere, for the benchmark
/// capture and for randomized tests that must be repeatable.
public struct SplitMix {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is not positive).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    public mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}
