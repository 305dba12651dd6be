/// A value that one thread alone uses, one access at a time, without the runtime exclusivity check.
///
/// A class's stored `var` costs that check (a runtime call) on every access; on the counters and
/// buffers used per record it costs `stats` 12 % more instructions (callgrind). A class keeps such
/// a value in a constant cell instead: `let counts = SingleOwnerCell(0)`, `counts.value += 1`.
/// Like swift-nio's loop-bound boxes it holds its owner to two promises the compiler no longer
/// checks: one thread only (the cell is not `Sendable`), and no access to `value` begins while
/// another is under way (nothing called inside a mutation of it reaches it again).
/// Reach it through a constant of `self`: through another object's (`ctx.tally.value`) the cell is
/// retained and released at every access. `SourceRulesTests` names the files that hold one.
public final class SingleOwnerCell<Value: ~Copyable> {
    /// Reached only through `value`, whose accessors are inlined into the user's module: an access
    /// from another module to the stored property itself would be checked again.
    @usableFromInline @exclusivity(unchecked) var stored: Value

    @inlinable public init(_ value: consuming Value) { stored = value }

    @inlinable public var value: Value {
        _read { yield stored }
        _modify { yield &stored }
    }
}

@available(*, unavailable)
extension SingleOwnerCell: Sendable where Value: ~Copyable {}
