import BTLensCore

/// A regular expression for `matches`, compiled once: PCRE2, as in Wireshark, case-sensitive
/// unless it says `(?i)`. A match past its budget counts as not found (said once on standard error).
struct Pattern: Sendable {
    let regex: SharedRegex

    init(_ text: String) throws(RegexError) {
        regex = try SharedRegex(text, use: "the filter's matches")
    }

    func matches(_ s: String) -> Bool { regex.matches(s) }
}
