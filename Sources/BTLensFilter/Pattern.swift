/// A regular expression for `matches`, compiled once. Swift's `Regex` over any output: matching
/// reads it and never changes it.
struct Pattern: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>

    init(_ text: String) throws {
        regex = try Regex(text)
    }

    func matches(_ s: String) -> Bool {
        (try? regex.firstMatch(in: s)) != nil
    }
}
