/// Arithmetic on numbers read from input (timestamps, counts, definition values): Swift traps on
/// overflow, so a result past the type's range is clamped to its nearest end instead. Callers say
/// where a clamped value can reach the output (docs/limits.md, "Arithmetic on input").
extension FixedWidthInteger {
    /// `self + other`, clamped to `min ... max`.
    @inlinable public func saturatingAdding(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }

    /// `self - other`, clamped to `min ... max`.
    @inlinable public func saturatingSubtracting(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self * other`, clamped to `min ... max`.
    @inlinable public func saturatingMultiplying(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
    }
}

extension Timestamp {
    /// Microseconds from `earlier` to this time, clamped to Int64's range. Two times more than 292,000
    /// years apart overflow a difference; then at least one of them lies outside 2000–2100, which the
    /// analyzer has already said (`capture.time.absurd`), so a clamped latency or gap is said too.
    @inlinable public func elapsed(since earlier: Timestamp) -> Int64 {
        microseconds.saturatingSubtracting(earlier.microseconds)
    }
}
