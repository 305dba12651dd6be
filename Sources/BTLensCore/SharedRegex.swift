import CPCRE2
import Synchronization

/// A user's regular expression (a display filter's `matches`, `--app-log-filter`,
/// `--app-log-format`), compiled once by PCRE2, the engine Wireshark's `matches` uses, and shared
/// by threads: a match holds a lock over the pattern's one match data, reused match after match;
/// btlens matches on one thread at a time, so none waits.
///
/// Every match has a budget (`matchLimit`, `depthLimit`, `heapLimitKiB`), so that no pattern
/// (`(a+)+$`) backtracks without end: a match past it ends as `.overBudget`, and the first
/// such match of a pattern is said on standard error once, with what it took. The pattern runs as
/// machine code (PCRE2's JIT) where the platform has it: a match past the budget takes about 2 ms
/// on a short line, against 11 to 16 ms in PCRE2's interpreter, and longer on a long line
/// when every step reads the rest of it (docs/limits.md).
public final class SharedRegex: Sendable {
    /// PCRE2's match limit: a tenth of its default (and Wireshark's), 10,000,000. Spent whole, it
    /// takes about 2 ms as JIT code and 11 to 16 ms in the interpreter, on a short line.
    public static let matchLimit: UInt32 = 1_000_000
    /// How deep backtracking may nest (PCRE2's default is 10,000,000).
    public static let depthLimit: UInt32 = 100_000
    /// The heap a match's backtracking may use, in KiB (PCRE2's default is 20 GiB).
    public static let heapLimitKiB: UInt32 = 16_384

    /// How a search ended.
    public enum Outcome: Equatable, Sendable {
        /// Found: byte offsets into the subject's UTF-8, the whole match first, then each group
        /// asked for (nil: the group took no part).
        case found([Range<Int>?])
        case notFound
        /// The budget ran out before the search could say.
        case overBudget
    }

    /// The pattern as written.
    public let pattern: String
    /// What the pattern is to the user (`--app-log-filter`), for the warning.
    private let use: String
    private let compiled: Mutex<Compiled>
    private let warned = Atomic<Bool>(false)

    /// Compiles `pattern` (UTF-8, case-sensitive unless it says `(?i)`); a pattern PCRE2 refuses
    /// throws `RegexError` with PCRE2's message and where in the pattern.
    public init(_ pattern: String, use: String) throws(RegexError) {
        self.pattern = pattern
        self.use = use
        compiled = Mutex(try Compiled(pattern))
    }

    /// The number of the group named `name`, for `search(_:groups:)`; nil when there is none.
    public func group(named name: String) -> Int? {
        compiled.withLock { c in
            let n = pcre2_substring_number_from_name_8(c.code, name)
            return n > 0 ? Int(n) : nil
        }
    }

    /// Searches `subject` for the pattern, giving the ranges of the groups numbered `groups`.
    public func search(_ subject: String, groups: [Int] = []) -> Outcome {
        // Until the warning is said, each match is timed, so that it says what one costs.
        let start = warned.load(ordering: .relaxed) ? 0 : OS.monotonicNanoseconds()
        let outcome = compiled.withLock { c in
            var subject = subject
            return subject.withUTF8 { c.search($0, groups: groups) }
        }
        if outcome == .overBudget, !warned.exchange(true, ordering: .relaxed) {
            let tenths = (OS.monotonicNanoseconds() &- start) / 100_000
            let text =
                "btlens: warning: \(use) \"\(pattern)\": a match ran past the budget of \(Self.matchLimit) steps and counts as not found (said once, for every such match; each spends the budget: this one took \(tenths / 10).\(tenths % 10) ms, more on a longer line); nested repetition such as (a+)+ can backtrack without end\n"
            let bytes = Array(text.utf8)
            bytes.withUnsafeBytes { _ = OS.write(2, $0.baseAddress, $0.count) }
        }
        return outcome
    }

    /// Whether the pattern is found in `subject` (false when the budget ran out).
    public func matches(_ subject: String) -> Bool {
        if case .found = search(subject) { return true }
        return false
    }
}

/// A regular expression PCRE2 refuses: its message, and the character offset in the pattern.
public struct RegexError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at offset \(offset)" }
}

/// PCRE2's compiled pattern, its match data and its budget: used under `SharedRegex`'s lock only.
private struct Compiled: ~Copyable {
    let code: OpaquePointer
    let data: OpaquePointer
    let context: OpaquePointer
    /// The JIT's stack, when the pattern was compiled to machine code (nil: PCRE2's interpreter).
    let jitStack: OpaquePointer?

    init(_ pattern: String) throws(RegexError) {
        var error: Int32 = 0
        var offset = 0
        // UTF-8 patterns and subjects (a Swift string is valid UTF-8); `\C` would split a character.
        let options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C
        var bytes = pattern
        let code = bytes.withUTF8 { pcre2_compile_8($0.baseAddress, $0.count, options, &error, &offset, nil) }
        guard let code else {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = pcre2_get_error_message_8(error, &buffer, buffer.count)
            let message = String(decoding: buffer.prefix(max(0, Int(n))), as: UTF8.self)
            let before = String(decoding: pattern.utf8.prefix(offset), as: UTF8.self)
            throw RegexError(message: message, offset: before.count)
        }
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil),
            let context = pcre2_match_context_create_8(nil)
        else {
            pcre2_code_free_8(code)
            throw RegexError(message: "out of memory", offset: 0)
        }
        pcre2_set_match_limit_8(context, SharedRegex.matchLimit)
        pcre2_set_depth_limit_8(context, SharedRegex.depthLimit)
        pcre2_set_heap_limit_8(context, SharedRegex.heapLimitKiB)
        // PCRE2's JIT, where the platform has it: the match limit bounds it too (not the depth and
        // heap limits: its stack, of at most `jitStackBytes`, does). Without it, the interpreter.
        var jitStack: OpaquePointer?
        if pcre2_jit_compile_8(code, PCRE2_JIT_COMPLETE) == 0 {
            jitStack = pcre2_jit_stack_create_8(32_768, Self.jitStackBytes, nil)
            if let jitStack { pcre2_jit_stack_assign_8(context, nil, UnsafeMutableRawPointer(jitStack)) }
        }
        (self.code, self.data, self.context, self.jitStack) = (code, data, context, jitStack)
    }

    /// The most stack a JIT match may use; a match that needs more is run again by the interpreter.
    static let jitStackBytes = 1 << 20

    deinit {
        if let jitStack { pcre2_jit_stack_free_8(jitStack) }
        pcre2_match_context_free_8(context)
        pcre2_match_data_free_8(data)
        pcre2_code_free_8(code)
    }

    func search(_ subject: UnsafeBufferPointer<UInt8>, groups: [Int]) -> SharedRegex.Outcome {
        // PCRE2 refuses a null subject, even an empty one.
        let empty: UInt8 = 0
        var rc = withUnsafePointer(to: empty) { none in
            pcre2_match_8(code, subject.baseAddress ?? none, subject.count, 0, 0, data, context)
        }
        // A JIT match past its stack (not its budget): the interpreter, bounded by its own limits.
        if rc == PCRE2_ERROR_JIT_STACKLIMIT {
            rc = withUnsafePointer(to: empty) { none in
                pcre2_match_8(code, subject.baseAddress ?? none, subject.count, 0, PCRE2_NO_JIT, data, context)
            }
        }
        switch rc {
        case PCRE2_ERROR_NOMATCH: return .notFound
        case ..<0: return .overBudget
        default: break
        }
        let pairs = Int(pcre2_get_ovector_count_8(data))
        let ovector = pcre2_get_ovector_pointer_8(data)
        func range(_ group: Int) -> Range<Int>? {
            guard let ovector, group >= 0, group < pairs, group < Int(rc) || group == 0 else { return nil }
            let (start, end) = (ovector[2 * group], ovector[2 * group + 1])
            // PCRE2_UNSET, ~0, reads as -1.
            guard start >= 0, start <= end else { return nil }
            return Int(start)..<Int(end)
        }
        return .found([range(0)] + groups.map(range))
    }
}
