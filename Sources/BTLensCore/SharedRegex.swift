import Synchronization

/// A compiled regular expression that threads share (a display filter's `matches`, a log format's
/// pattern). Swift's `Regex` is not `Sendable`: it builds its matching program on first use. So a
/// match holds a lock; btlens matches on one thread at a time, so none waits.
public final class SharedRegex: Sendable {
    private let regex: Mutex<Regex<AnyRegexOutput>>

    public init(_ regex: sending Regex<AnyRegexOutput>) { self.regex = Mutex(regex) }

    /// Runs `body` with the regex; what it gives back must not keep the match.
    public func withRegex<R: Sendable>(_ body: (Regex<AnyRegexOutput>) -> R) -> R {
        regex.withLock { body($0) }
    }
}
